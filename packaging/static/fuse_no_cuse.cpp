// SPDX-License-Identifier: Apache-2.0
// slowfs-static's libfuse3.a without CUSE and the high-level API. The
// archive's low-level session (fuse_lowlevel.c) names cuse_lowlevel_init,
// which pulls in cuse_lowlevel.c, whose cuse_lowlevel_main pulls in helper.c,
// which pulls in the high-level API (fuse.c) and its module loader: a dlopen
// that in a static binary would load the machine's shared objects, built for
// another libc (static-link.sh fails the link on glibc's warning about it).
// slowfs serves FUSE through the low-level API only, and the kernel sends
// CUSE_INIT only on /dev/cuse, which slowfs never opens: this definition
// takes the place of the archive's and answers such a request ENOSYS. (If a
// later libfuse pulls cuse_lowlevel.c in for another symbol, the link fails
// on the duplicate definition rather than silently.)
#define FUSE_USE_VERSION 314
#include <errno.h>
#include <fuse_lowlevel.h>

extern "C" void cuse_lowlevel_init(fuse_req_t req, fuse_ino_t, const void*) { fuse_reply_err(req, ENOSYS); }
