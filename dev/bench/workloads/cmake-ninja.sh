# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# A CMake + Ninja build of a generated C project: 60 sources in 3 libraries,
# configured (CMake's compiler checks and try-compiles), built with -j2, then
# the no-op rebuild (Ninja stats every input and output), one source touched
# and rebuilt, the build directory's install, and a clean.
set -e
mkdir -p proj/src
for l in 0 1 2; do
  for i in $(seq 0 19); do
    printf '#include "common.h"\nint f%d_%d(int x) { return x * %d + %d; }\n' $l $i $i $l > proj/src/l${l}_$i.c
  done
done
printf 'int f0_1(int);\n' > proj/src/common.h
printf '#include <stdio.h>\n#include "common.h"\nint main(void) { printf("%%d\\n", f0_1(3)); return 0; }\n' > proj/src/main.c
cat > proj/CMakeLists.txt <<'CM'
cmake_minimum_required(VERSION 3.16)
project(gen C)
include(CheckIncludeFile)
check_include_file(unistd.h HAVE_UNISTD_H)
foreach(l 0 1 2)
  file(GLOB srcs ${CMAKE_SOURCE_DIR}/src/l${l}_*.c)
  add_library(l${l} STATIC ${srcs})
endforeach()
add_executable(app src/main.c)
target_link_libraries(app l0 l1 l2)
install(TARGETS app DESTINATION bin)
CM
cmake -S proj -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$PWD/inst" > /dev/null
ninja -C build -j2 > /dev/null
ninja -C build > /dev/null
touch proj/src/l1_7.c
ninja -C build > /dev/null
ninja -C build install > /dev/null
test "$(inst/bin/app)" = 3
ninja -C build clean > /dev/null
