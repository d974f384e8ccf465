// SPDX-License-Identifier: Apache-2.0
// Runs the real fsreplay binary (FSR_FSREPLAY_PATH, which the including
// test defines): the CLI tests' one way to start it, and to run it to the
// end with stdout and stderr kept apart.
#pragma once

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

namespace fsr {

struct CliRun {
  int code = -1;  // exit code; -1: killed by a signal
  std::string out, err;
};

inline std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Starts `fsreplay ARGS...`, stdout to `out` and stderr to `err` (files, one
// file for both when they are the same; "/dev/null" for none), in a process
// group of its own if asked (a signal to the group reaches what it starts),
// after `in_child` (an environment variable, a limit) in the child.
inline pid_t start_fsreplay(const std::vector<std::string>& args, const std::string& out, const std::string& err,
                            bool own_group = false, const std::function<void()>& in_child = {}) {
  const pid_t p = fork();
  if (p != 0) return p;
  if (own_group) setpgid(0, 0);
  if (in_child) in_child();
  const int o = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  const int e = err == out ? o : open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  dup2(o, STDOUT_FILENO);
  dup2(e, STDERR_FILENO);
  std::vector<char*> argv{const_cast<char*>("fsreplay")};
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  execv(FSR_FSREPLAY_PATH, argv.data());
  _exit(127);
}

// `fsreplay ARGS...` to its end, stdout and stderr apart.
inline CliRun fsreplay(const std::vector<std::string>& args) {
  char tpl[] = "/tmp/fsr-cli-XXXXXX";
  const std::string io = mkdtemp(tpl) ? tpl : "/tmp";
  const std::string out = io + "/out", err = io + "/err";
  const pid_t p = start_fsreplay(args, out, err);
  int st = 0;
  waitpid(p, &st, 0);
  CliRun r;
  r.code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  std::filesystem::remove_all(io);
  return r;
}

inline std::string show(const CliRun& r) {
  return "exit " + std::to_string(r.code) + "\nstdout: " + r.out + "\nstderr: " + r.err;
}

}  // namespace fsr
