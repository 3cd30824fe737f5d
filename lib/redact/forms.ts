// Where a low-entropy password sits by its place rather than by its look (issue 27): the value of a
// secret-named name/value pair (Kubernetes env entries in YAML and JSON, HAR headers, .NET
// `<add key= value=>`), a .netrc's password, an XML element named for a secret, a YAML block scalar
// under a secret name, SQL's IDENTIFIED BY and PASSWORD '...', and the password arguments of common
// commands (mysql -pX, sshpass -p, redis-cli -a, htpasswd -b, ssh-keygen -N/-P, docker login -p,
// sqlcmd -P, zip/7z -P, mongo -p, smbclient -U user%pw; openssl's pass:X is an assignment). Each
// pattern reads raw text and the same text inside a JSON string (escaped quotes, `\n`); every
// repetition before a literal is bounded, so no pattern is quadratic on a long line, and each has a
// hint (a few `includes`), so text without its literals costs no regex run.
import { isCredentialParam } from "../wire/credential-name.ts";
import { isSecretName } from "./fields.ts";
import type { Detector } from "./rules.ts";
import { NAME_WORDS, VALUE } from "./rules.ts";

/** An optional quote, raw or JSON-escaped. */
const Q = `\\\\*["']?`;
/** A line break, raw or written as a JSON escape. */
const NL = "(?:\\r?\\n|\\\\r\\\\n|\\\\n)";
/** A name that ends in a secret word (`DB_PASSWORD`, `X-Auth-Token`, `apiKey`). */
const NAME = `[\\w.-]{0,64}?(?:${NAME_WORDS})`;
/** A name the secret-name rules judge (`pname`, tested by secretPair). */
const PNAME = "(?<pname>[\\w.:-]{1,64})";
/** `:` or `=` between a name and its value, spaces around it. */
const SET = "[ \\t]*[:=][ \\t]*";
/** What separates a pair's two members: a comma, a line break (a YAML list item's too) or spaces. */
const PAIR_SEP = `[ \\t]*(?:,[ \\t]*|${NL}[ \\t]{0,64}(?:-[ \\t]+)?|[ \\t]+)`;
/** An XML tag that ends in a secret word, with or without a namespace (`db:password`). */
const XNAME = `[\\w.:-]{0,64}?(?:${NAME_WORDS})`;

/** Whether a pair's name (`pname`) names a secret: a field name (fields.ts) or a credential parameter. */
function secretPair(m: RegExpMatchArray): boolean {
  const name = m.groups?.pname ?? "";
  return isSecretName(name) || isCredentialParam(name);
}

/** A bare argument: no quote, no backslash (a JSON escape ends it), at least one character. */
const ARG = `(?:"(?<secret>[^"\\\\\\r\\n]+)"|'(?<secret2>[^'\\r\\n]+)'|(?<secret3>[^\\s"'\\\\;&|]+))`;
/** What a command line may hold between the command and its flag (bounded, on one line). */
const BEFORE = "[^\\n;|&]{0,256}?";

/** Commands and the flag that takes their password (`spaced`: the flag and the value may be apart). */
const COMMAND_FLAGS: readonly { commands: string; flag: string; spaced: boolean }[] = [
  // mysql -pX only: a spaced -p prompts, and what follows is the database
  {
    commands: "mysql|mysqldump|mysqladmin|mysqlimport|mysqlsh|mariadb|mariadb-dump",
    flag: "-p",
    spaced: false,
  },
  { commands: "sshpass", flag: "-p", spaced: true },
  { commands: "redis-cli", flag: "(?:-a|--pass)", spaced: true },
  { commands: "ssh-keygen", flag: "-[NP]", spaced: true },
  { commands: "(?:docker|podman)[ \\t]+login|helm[ \\t]+registry[ \\t]+login", flag: "-p", spaced: true },
  { commands: "sqlcmd|bcp|osql|isql", flag: "-P", spaced: true },
  { commands: "zip|unzip|7z|7za|7zr", flag: "-[pP]", spaced: true },
  { commands: "mongo|mongosh|mongodump|mongorestore|mongoexport|mongoimport", flag: "-p", spaced: true },
  { commands: "(?:az|oc|cf)[ \\t]+login", flag: "(?:-p|--password)", spaced: true },
  {
    commands: "ldapsearch|ldapadd|ldapmodify|ldapdelete|ldappasswd|ldapwhoami|ldapcompare",
    flag: "-w",
    spaced: true,
  },
  { commands: "rdesktop", flag: "-p", spaced: true },
  { commands: "useradd|usermod", flag: "-p", spaced: true },
];

/** One pattern for every command's password argument: `cmd ... FLAG VALUE`. */
function commandPasswords(): RegExp {
  const one = ({ commands, flag, spaced }: (typeof COMMAND_FLAGS)[number]) =>
    `\\b(?:${commands})\\b${BEFORE}[ \\t]${flag}${spaced ? "[ \\t]*" : ""}`;
  return new RegExp(`(?:${COMMAND_FLAGS.map(one).join("|")})${ARG}`, "g");
}

/** A YAML block scalar's start: `: |`, `: >-` at the end of a line. */
const BLOCK_START = /:[ \t]*[|>][+-]?[0-9]?[ \t]*(?:\r?\n|\\[rn])/;

const anyOf = (text: string, words: readonly string[]): boolean => words.some((w) => text.includes(w));

/** Credentials by their place in a file format or on a command line. */
export const FORMS: readonly Detector[] = [
  {
    // {"name": "DB_PASSWORD", "value": "x"}, `- name: X\n  value: x`, key="DbPassword" value="x"
    name: "name-value",
    hint: (t) => t.includes("alue") || t.includes("ALUE"),
    pattern: new RegExp(
      `\\b(?:name|key)${Q}${SET}${Q}${PNAME}${Q}${PAIR_SEP}${Q}value${Q}${SET}${VALUE}`,
      "gi",
    ),
    accept: secretPair,
  },
  {
    // the same pair written value first: {"value": "x", "name": "DB_PASSWORD"}
    name: "value-name",
    hint: (t) => t.includes("alue") || t.includes("ALUE"),
    pattern: new RegExp(
      `\\bvalue${Q}${SET}${VALUE}${Q}?${PAIR_SEP}${Q}(?:name|key)${Q}${SET}${Q}${PNAME}`,
      "gi",
    ),
    accept: secretPair,
  },
  {
    // .netrc: `machine h login u password p`, one line or several
    name: "netrc",
    hint: (t) => t.includes("password"),
    pattern: new RegExp(
      `\\b(?:machine[ \\t]+[^\\s"'\\\\]{1,256}|default)(?:[ \\t]|${NL}){1,64}(?:(?:login|account|port)[ \\t]+[^\\s"'\\\\]{1,256}(?:[ \\t]|${NL}){1,64}){0,3}password[ \\t]+${VALUE}`,
      "g",
    ),
  },
  {
    // <password>x</password>, <DbPassword><![CDATA[x]]></DbPassword>
    name: "xml-element",
    hint: (t) => t.includes("</") || t.includes("<\\/"),
    pattern: new RegExp(
      `<(?<tag>${XNAME})(?:[ \\t][^<>]{0,256})?>(?:<!\\[CDATA\\[)?(?<secret>[^<\\]\\r\\n]{1,1024}?)(?:\\]\\]>)?<\\\\?/\\k<tag>>`,
      "gi",
    ),
  },
  {
    // <entry key="db.password">x</entry>, <property name="password">x</property>
    name: "xml-keyed-element",
    hint: (t) => (t.includes("</") || t.includes("<\\/")) && (t.includes("key=") || t.includes("name=")),
    pattern:
      /<(?<tag>[\w.:-]{1,64})[ \t][^<>]{0,256}?\b(?:key|name)=\\*["'](?<pname>[\w.:-]{1,64})\\*["'][^<>]{0,256}>(?<secret>[^<\r\n]{1,1024}?)<\\?\/\k<tag>>/gi,
    accept: secretPair,
  },
  {
    // password: |\n  x (the indented lines, however many)
    name: "yaml-block",
    hint: (t) => (t.includes("|") || t.includes(">")) && BLOCK_START.test(t),
    pattern: new RegExp(
      `(?<![A-Za-z0-9])${NAME}${Q}[ \\t]*:[ \\t]*[|>][+-]?[0-9]?[ \\t]*${NL}(?<ind>[ \\t]{1,64})(?<secret>[^\\s\\\\][^\\r\\n\\\\]*(?:${NL}\\k<ind>[^\\r\\n\\\\]*){0,200})`,
      "gi",
    ),
  },
  {
    // IDENTIFIED BY 'x', IDENTIFIED WITH plugin BY 'x', PASSWORD 'x', PASSWORD('x')
    name: "sql-password",
    hint: (t) => anyOf(t, ["dentified", "DENTIFIED", "assword", "ASSWORD"]),
    pattern: new RegExp(
      `\\b(?:identified[ \\t]+(?:with[ \\t]+[\\w'"]{1,64}[ \\t]+)?by(?:[ \\t]+password)?[ \\t]+|set[ \\t]+password(?:[ \\t]+for[ \\t]+[^\\s=]{1,256})?[ \\t]*=[ \\t]*(?:password[ \\t]*\\([ \\t]*)?|password[ \\t]*\\(?[ \\t]*(?=['"]))${ARG}`,
      "gi",
    ),
  },
  // mysql -pX (glued: a spaced -p prompts), sshpass -p X, redis-cli -a X, ssh-keygen -N X, ...
  // mysql -pX, sshpass -p X, redis-cli -a X, ssh-keygen -N X, docker login -p X, sqlcmd -P X, ...
  // Every flag follows a space or a tab: a text without " -" has none (one `includes`, far cheaper than
  // looking for each command's name).
  {
    name: "command-password",
    pattern: commandPasswords(),
    hint: (t) => t.includes(" -") || t.includes("\t-"),
  },
  {
    // htpasswd -b[c] FILE USER PASSWORD, htpasswd -nb USER PASSWORD
    name: "htpasswd-password",
    hint: (t) => t.includes("htpasswd"),
    pattern: new RegExp(
      `\\bhtpasswd(?:[ \\t]+-[A-Za-z]{1,8}){0,4}?[ \\t]+-[A-Za-z]{0,8}b[A-Za-z]{0,8}(?:[ \\t]+-[A-Za-z]{1,8}){0,4}(?:[ \\t]+[^\\s"'\\\\-][^\\s"'\\\\]{0,256})?[ \\t]+[^\\s"'\\\\]{1,256}[ \\t]+${ARG}`,
      "g",
    ),
  },
  {
    // lftp -u user,pw; xfreerdp /p:pw; sqlplus user/pw@db; net user NAME pw; echo 'user:pw' | chpasswd
    name: "command-credentials",
    hint: (t) => anyOf(t, ["lftp", "/p:", "sqlplus", "net user", "chpasswd"]),
    pattern: new RegExp(
      `(?:\\blftp\\b${BEFORE}[ \\t]-u[ \\t]+[^\\s,"'\\\\]{1,256},|\\bx?freerdp\\b${BEFORE}[ \\t][/+]p:|\\bsqlplus[ \\t]+(?:-[sSlL][ \\t]+)?[\\w$#.-]{1,128}/|\\bnet[ \\t]+user[ \\t]+[^\\s/"'\\\\]{1,256}[ \\t]+(?=[^\\s/])|\\becho[ \\t]+(?:-[en][ \\t]+)?["']?[^\\s:"']{1,256}:(?=[^\\n|]{1,256}\\|[ \\t]*(?:sudo[ \\t]+)?chpasswd))(?:"(?<secret>[^"\\\\\\r\\n]+)"|'(?<secret2>[^'\\r\\n]+)'|(?<secret3>[^\\s"'\\\\;&|@/]+))`,
      "gi",
    ),
  },
  {
    // smbclient -U user%password
    name: "smb-password",
    hint: (t) => t.includes("smb") || t.includes("rpcclient"),
    pattern: new RegExp(
      `\\b(?:smbclient|rpcclient|smbmap|smbget)\\b${BEFORE}[ \\t]-U[ \\t]*[^\\s%"'\\\\]{1,256}%${ARG}`,
      "g",
    ),
  },
];
