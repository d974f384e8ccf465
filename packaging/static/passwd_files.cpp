// SPDX-License-Identifier: Apache-2.0
// fsreplay-static's setpwent/getpwent/endpwent: /etc/passwd only. glibc's own
// go through NSS, which in a static binary dlopens the machine's modules
// (libnss_systemd.so.2 on Debian 12) built for another libc: the replayer's
// home-directory guard (replayer/replay.cpp) crashed in them. These
// definitions take the place of libc.a's at link time; fgetpwent reads the
// file without NSS. Users known only to LDAP or systemd-homed are not seen,
// $HOME still is.
#include <pwd.h>
#include <stdio.h>

namespace {
FILE* passwd_file = nullptr;
}

extern "C" {

void setpwent(void) {
  if (passwd_file) {
    rewind(passwd_file);
  } else {
    passwd_file = fopen("/etc/passwd", "re");
  }
}

struct passwd* getpwent(void) {
  if (!passwd_file) setpwent();
  return passwd_file ? fgetpwent(passwd_file) : nullptr;
}

void endpwent(void) {
  if (passwd_file) fclose(passwd_file);
  passwd_file = nullptr;
}

}  // extern "C"
