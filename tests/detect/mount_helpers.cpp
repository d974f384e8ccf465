// SPDX-License-Identifier: Apache-2.0
#include "mount_helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace fsr::test {

std::string read_fixture(const std::string& name) {
  std::string p = std::string(FSR_ENV_FIXTURES) + "/" + name;
  std::ifstream in(p, std::ios::binary);
  if (!in) throw std::runtime_error("missing fixture " + p);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string make_temp_dir(const std::string& tag) {
  std::string templ = "/tmp/fsr-env-" + tag + "-XXXXXX";
  if (mkdtemp(templ.data()) == nullptr) throw std::runtime_error("mkdtemp " + templ + " failed");
  return templ;
}

int run(const std::string& shell_cmd) {
  int st = system((shell_cmd + " >/dev/null 2>&1").c_str());
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

std::string run_capture(const std::string& shell_cmd, int* status) {
  FILE* f = popen(shell_cmd.c_str(), "r");
  std::string out;
  if (f == nullptr) {
    if (status) *status = -1;
    return out;
  }
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  int st = pclose(f);
  if (status) *status = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
  return out;
}

bool have_program(const std::string& name) { return run("command -v " + name) == 0; }
bool is_root() { return geteuid() == 0; }

void ScopedMount::release() {
  if (mounted && !dir.empty()) {
    if (umount2(dir.c_str(), 0) != 0) umount2(dir.c_str(), MNT_DETACH);
    mounted = false;
  }
  if (!loop_dev.empty()) {
    run("losetup -d " + loop_dev);
    loop_dev.clear();
  }
  if (!image.empty()) {
    unlink(image.c_str());
    image.clear();
  }
  if (!dir.empty()) {
    if (owns_dir) rmdir(dir.c_str());
    dir.clear();
  }
}

ScopedMount::~ScopedMount() { release(); }

}  // namespace fsr::test
