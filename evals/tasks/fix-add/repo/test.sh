#!/bin/sh
# The task's check: add.sh must add.
set -e
[ "$(sh add.sh 2 3)" = 5 ]
[ "$(sh add.sh 10 -4)" = 6 ]
echo ok
