#!/usr/bin/env bash
# The base step of action.yml: reads compare-to of the form artifact:NAME/FILE and tells the next
# step which artifact to download (name=NAME) and where the base then is (file=DIR/FILE). A plain
# path needs no step: run.sh reads it as it is.
#   COMPARE_TO=artifact:main-scorecard/scorecard.json BASE_DIR=/tmp/base bash base.sh
# COMPARE_RUN_ID (another run's artifact) needs HAS_TOKEN=true: the token itself never comes here.
# Exit codes: 0 outputs written; 2 compare-to is not artifact:NAME/FILE, or another run without a token.
set -euo pipefail

spec="${COMPARE_TO#artifact:}"
name="${spec%%/*}"
file="${spec#*/}"
if [ "$spec" = "$COMPARE_TO" ] || [ "$name" = "$spec" ] || [ -z "$name" ] || [ -z "$file" ]; then
  printf '::error title=proctor::Cannot use compare-to "%s": expected a path, or artifact:NAME/FILE\n' "$COMPARE_TO" >&2
  exit 2
fi
# Another run's artifact is read through the API, with the token; without one, download-artifact
# would silently look in this run instead.
if [ -n "${COMPARE_RUN_ID:-}" ] && [ "${HAS_TOKEN:-false}" != true ]; then
  printf '::error title=proctor::Cannot download "%s" from run %s: set the token input (actions: read)\n' "$name" "$COMPARE_RUN_ID" >&2
  exit 2
fi
case "/$file/" in
*/../*) printf '::error title=proctor::Cannot use compare-to "%s": FILE must stay inside the artifact\n' "$COMPARE_TO" >&2; exit 2 ;;
esac
{
  echo "name=${name}"
  echo "file=${BASE_DIR:?}/${file}"
} >>"${GITHUB_OUTPUT:?}"
