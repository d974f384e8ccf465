// SPDX-License-Identifier: Apache-2.0
// The per-syscall capture suite's fixture (syscall_capture_test.cpp,
// syscall_capture_process_test.cpp): fsr_trigger recorded once for the
// suite, its events split by the access("/fsr-mark/<case>") markers.
#pragma once

#include <sys/syscall.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <climits>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "tests/recorder/record_helper.h"
#include "traces/syscalls.h"

namespace fsr::test {

class SyscallCapture : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ASSERT_EQ(geteuid(), 0u) << "the recorder tests load BPF programs: run them as root";
    dir_ = new TempDir();
    const std::string& d = dir_->path();
    ASSERT_EQ(sh("mkdir -p '" + d + "/sub' && head -c 1234 /dev/zero > '" + d + "/data'"), 0);
    rec_ = new Recorded(record_command({FSR_TRIGGER_PATH, d}, d));
    ASSERT_TRUE(rec_->reader) << "recording failed";
    // Split by markers of the trigger process.
    std::string current;
    for (const Event& e : rec_->events) {
      if (e.nr == SYS_access && e.path[0] != kNoStr) {
        std::string p = rec_->str(e.path[0]);
        if (p.rfind("/fsr-mark/", 0) == 0) {
          current = p.substr(10);
          pid_ = e.pid;
          continue;
        }
      }
      if (!current.empty()) (*cases_)[current].push_back(e);
    }
  }
  static void TearDownTestSuite() {
    delete rec_;
    delete dir_;
    rec_ = nullptr;
    dir_ = nullptr;
  }

  // The first event `nr` of case `name` issued by the trigger process.
  static const Event& ev(const std::string& name, uint16_t nr) {
    static const Event none{};
    auto it = cases_->find(name);
    if (it == cases_->end()) {
      ADD_FAILURE() << "case " << name << " has no events";
      return none;
    }
    for (const Event& e : it->second)
      if (e.nr == nr && e.pid == pid_) return e;
    ADD_FAILURE() << "case " << name << ": no " << syscall_name(nr) << " event";
    return none;
  }
  static std::string path(const Event& e, int i) { return e.path[i] ? rec_->str(e.path[i]) : "<none>"; }
  // Whether the trace header has a recorder choice starting with `prefix`.
  static bool choice(const std::string& prefix) {
    for (const std::string& c : rec_->reader->header().recorder_choices)
      if (c.rfind(prefix, 0) == 0) return true;
    return false;
  }
  static std::string abs(const std::string& rel) { return dir_->path() + "/" + rel; }
  // `p` with its directory part as the kernel walked it (symlinks followed).
  static std::string physical(const std::string& p) {
    char buf[PATH_MAX];
    const std::string dir = p.substr(0, p.rfind('/'));
    return std::string(realpath(dir.c_str(), buf) ? buf : dir.c_str()) + p.substr(p.rfind('/'));
  }

  inline static TempDir* dir_ = nullptr;
  inline static Recorded* rec_ = nullptr;
  inline static std::map<std::string, std::vector<Event>>* cases_ = new std::map<std::string, std::vector<Event>>();
  inline static uint32_t pid_ = 0;
};

}  // namespace fsr::test
