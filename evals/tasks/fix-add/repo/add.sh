#!/bin/sh
# add A B: prints the sum of two integers.
echo $(( $1 - $2 ))
