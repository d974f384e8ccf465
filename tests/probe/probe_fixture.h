// SPDX-License-Identifier: Apache-2.0
// What the probe's tests share: a private directory removed afterwards, and
// options for a probe of a second or two.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <string>

#include "probe/prober.h"

namespace fsr::test {

struct Tmp {
  std::string dir;
  Tmp() {
    char tpl[] = "/var/tmp/fsr-probe-test-XXXXXX";
    dir = mkdtemp(tpl);
  }
  ~Tmp() { std::filesystem::remove_all(dir); }
  bool empty() const { return std::filesystem::is_empty(dir); }
};

inline ProbeOptions quick(const std::string& dir) {
  ProbeOptions o;
  o.dir = dir;
  o.duration_s = 1;
  o.max_rounds = 2;
  o.samples = 2;
  o.cold_rounds = 1;
  o.measure_server = false;  // probe_server_test.cpp measures it
  return o;
}

}  // namespace fsr::test
