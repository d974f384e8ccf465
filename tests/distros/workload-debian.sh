#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The distros tests' workload in a Debian chroot (POSIX sh: the tree has no
# python). `prepare` (not recorded) makes /work/src, a git repository of FILES
# small text files and a C program of UNITS files with its Makefile; `run`
# (recorded, cwd /work/rec) clones it with --no-hardlinks, builds the program
# with make -j2 (gcc, cc1, as, ld: a process each), runs it and asks git
# for the clone's status.
#   usage: workload-debian.sh prepare FILES UNITS | run
set -eu
case $1 in
  prepare)
    files=$2 units=$3
    mkdir -p /work/src/docs /work/src/c
    i=0
    while [ "$i" -lt "$files" ]; do
      d=/work/src/docs/d$((i % 12))
      mkdir -p "$d"
      printf 'note %d\nline two of %d\n' "$i" "$i" >"$d/note$i.txt"
      i=$((i + 1))
    done
    : >/work/src/c/units.h
    main='#include <stdio.h>
#include "units.h"
int main(void) { long s = 0;'
    i=0
    while [ "$i" -lt "$units" ]; do
      printf 'long unit%d(long x) { return x * %d + 1; }\n' "$i" "$i" >"/work/src/c/unit$i.c"
      echo "long unit$i(long x);" >>/work/src/c/units.h
      main="$main s += unit$i($i);"
      i=$((i + 1))
    done
    printf '%s\nprintf("%%ld\\n", s); return 0; }\n' "$main" >/work/src/c/main.c
    printf 'OBJS := $(patsubst %%.c,%%.o,$(wildcard *.c))\nhello: $(OBJS)\n\t$(CC) -o $@ $(OBJS)\n%%.o: %%.c units.h\n\t$(CC) -O1 -c $<\n' \
      >/work/src/c/Makefile
    cd /work/src
    git init -q
    git add -A
    git -c user.email=distros@fsreplay -c user.name=distros commit -qm workload
    ;;
  run)
    git clone -q --no-hardlinks /work/src clone
    make -s -j2 -C clone/c
    ./clone/c/hello
    git -C clone status --short
    ;;
  *) echo "workload-debian.sh: prepare FILES UNITS | run" >&2; exit 2 ;;
esac
