// SPDX-License-Identifier: Apache-2.0
// fsreplay-static's user and group lookups: /etc/passwd and /etc/group only.
// glibc's own go through NSS, which in a static binary dlopens the machine's
// modules (libnss_systemd.so.2 on Debian 12) built for another libc: the
// replayer's home-directory guard (replayer/replay.cpp) crashed in them. These
// definitions take the place of libc.a's at link time (static-link.sh fails
// the link on glibc's warning if an NSS call is left); fgetpwent and
// fgetgrent read the files without NSS. Users and groups known only to LDAP
// or systemd-homed are not seen; $HOME and $SUDO_UID/$SUDO_GID still are.
//   getpwent family: the replayer's guard (replayer/session/root_policy.cpp).
//   getpwuid, initgroups: `record` under sudo runs the workload as the
//   invoking user (recorder/core/launcher.cpp).
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>

#include <vector>

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

// The entry stays valid until the next getpw* call, as glibc's does
// (fgetpwent's buffer is static).
struct passwd* getpwuid(uid_t uid) {
  FILE* f = fopen("/etc/passwd", "re");
  if (!f) return nullptr;
  struct passwd* found = nullptr;
  while (struct passwd* pw = fgetpwent(f)) {
    if (pw->pw_uid == uid) {
      found = pw;
      break;
    }
  }
  fclose(f);
  return found;
}

// GROUP and every group of /etc/group that lists USER as a member.
int initgroups(const char* user, gid_t group) {
  std::vector<gid_t> gids{group};
  if (FILE* f = fopen("/etc/group", "re")) {
    while (struct group* gr = fgetgrent(f)) {
      if (gr->gr_gid == group) continue;
      for (char** m = gr->gr_mem; m && *m; ++m) {
        if (strcmp(*m, user) == 0) {
          gids.push_back(gr->gr_gid);
          break;
        }
      }
    }
    fclose(f);
  }
  return setgroups(gids.size(), gids.data());
}

}  // extern "C"
