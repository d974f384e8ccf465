// SPDX-License-Identifier: Apache-2.0
// Floor benchmark: which part of the recorder's per-syscall overhead is the
// kernel's tracepoint machinery and clock, and which part is the recorder's own
// work. Runs the fstat storm of record-storm.c untraced, under the three
// levels of bpf/record_floor.bpf.c and, with --recorder, under `fsreplay
// record`; the variants take turns in every round and the figures are medians
// of per-round differences. Prints figures; asserts nothing.
//   fsreplay_bench_record_floor [--calls N] [--threads T] [--rounds R] [--recorder PATH]
// With --run LEVEL -- CMD ARGS..., it runs CMD (and every process it starts)
// under one level instead, with every syscall `fsreplay record` records taken
// through the level's work, and passes CMD's exit status through: a wrapper
// for workload benchmarks (record-ab.sh times a `git clone` under it).
// Every variant runs the same storm child (this program with --storm), which
// times itself from its first thread's start to its last thread's join, so
// process start, exec and BPF load are never timed. The storm fstat()s its
// stdin, a pipe in every variant: fstat's own cost depends on the file.
#include <bpf/libbpf.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include "bpf/fsreplay_record.h"
#include "record_floor.skel.h"
#include "recorder/core/launcher.h"
#include "cli/cli_util.h"
#include "base/clock.h"
#include "base/status.h"
#include "traces/syscalls.h"
#include "base/unique_fd.h"

namespace {

using fsr::Result;
using fsr::Status;
using fsr::UniqueFd;

constexpr const char* kName = "fsreplay_bench_record_floor";

using fsr::now_ns;

// The storm child: waits for one byte (or EOF) on stdin, so that the parent
// can attach programs filtered on its pid first, then runs record-storm.c's
// loop and prints "calls elapsed_ns".
int run_storm(uint64_t calls, uint32_t threads) {
  char go;
  if (read(STDIN_FILENO, &go, 1) < 0) return 1;
  std::vector<std::thread> pool;
  const uint64_t t0 = now_ns();
  for (uint32_t i = 0; i < threads; ++i)
    pool.emplace_back([calls] {
      struct stat st;
      for (uint64_t c = 0; c < calls; ++c) syscall(SYS_fstat, 0, &st);
    });
  for (auto& t : pool) t.join();
  fmt::print("{} {}\n", calls * threads, now_ns() - t0);
  return 0;
}

// A running child with its stdin and stdout as pipes. A child never reaped is
// killed and reaped.
struct Child {
  pid_t pid = -1;
  UniqueFd in;   // write end of the child's stdin: one byte starts the storm
  UniqueFd out;  // read end of the child's stdout
  Child() = default;
  Child(Child&& o) noexcept : pid(std::exchange(o.pid, -1)), in(std::move(o.in)), out(std::move(o.out)) {}
  Child& operator=(Child&&) = delete;
  ~Child() {
    if (pid > 0) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
  }
};

// Starts argv[0] (a path) with stdin and stdout to pipes, stderr to `err_fd`.
Result<Child> spawn(const std::vector<std::string>& argv, int err_fd) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  int in[2], out[2];
  if (pipe2(in, O_CLOEXEC) != 0) return Status::error(fmt::format("pipe2: {}", strerror(errno)));
  UniqueFd in_r(in[0]), in_w(in[1]);
  if (pipe2(out, O_CLOEXEC) != 0) return Status::error(fmt::format("pipe2: {}", strerror(errno)));
  UniqueFd out_w(out[1]);
  Child c;
  c.in = std::move(in_w);
  c.out.reset(out[0]);
  c.pid = fork();
  if (c.pid < 0) return Status::error(fmt::format("fork: {}", strerror(errno)));
  if (c.pid == 0) {
    if (dup2(in_r.get(), STDIN_FILENO) < 0 || dup2(out_w.get(), STDOUT_FILENO) < 0 || dup2(err_fd, STDERR_FILENO) < 0)
      _exit(127);
    execv(args[0], args.data());
    _exit(127);
  }
  return c;
}

// Starts the storm if it still waits (EOF on its stdin), reads its "calls
// elapsed_ns" line and reaps the child: the elapsed ns.
Result<uint64_t> storm_ns(Child& c, const std::string& what) {
  c.in.reset();
  std::string line;
  char buf[256];
  ssize_t n;
  while ((n = read(c.out.get(), buf, sizeof buf)) > 0) line.append(buf, static_cast<size_t>(n));
  int st = 0;
  waitpid(std::exchange(c.pid, -1), &st, 0);
  unsigned long long calls = 0, ns = 0;
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || sscanf(line.c_str(), "%llu %llu", &calls, &ns) != 2)
    return Status::error(fmt::format("{}: the storm did not finish (exit status {}, output '{}')", what,
                                     WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st), line));
  return static_cast<uint64_t>(ns);
}

int libbpf_quiet(enum libbpf_print_level, const char* fmt, va_list ap) {
  return getenv("FSREPLAY_BPF_DEBUG") ? vfprintf(stderr, fmt, ap) : 0;
}

struct SkelDeleter {
  void operator()(fsr_floor_bpf* s) const { fsr_floor_bpf__destroy(s); }
};
using FloorSkel = std::unique_ptr<fsr_floor_bpf, SkelDeleter>;

// bpf/record_floor.bpf.c at `level`, filtered on `tgid` (and its descendants),
// loaded and attached. The syscalls that take the level's work: fstat only
// (the storm), or with `whole_table` every syscall the recorder records.
Result<FloorSkel> attach_floor(uint32_t level, pid_t tgid, bool whole_table = false) {
  FloorSkel skel(fsr_floor_bpf__open());
  if (!skel) return Status::error(fmt::format("opening the BPF object failed: {}", strerror(errno)));
  skel->rodata->level = level;
  skel->rodata->tgid = static_cast<uint32_t>(tgid);
  // The storm's timed loop makes no other syscall worth a flag.
  skel->rodata->sys_flags[SYS_fstat] = FSR_SF_RECORD;
  if (whole_table)
    for (const fsr::SyscallInfo& s : fsr::syscall_table())
      if (s.nr < FSR_MAX_NR) skel->rodata->sys_flags[s.nr] = FSR_SF_RECORD;
  if (int err = fsr_floor_bpf__load(skel.get()))
    return Status::error(
        fmt::format("loading the BPF object (level {}) failed: {} (rerun with FSREPLAY_BPF_DEBUG=1 "
                    "for the verifier log)",
                    level, strerror(-err)));
  if (int err = fsr_floor_bpf__attach(skel.get()))
    return Status::error(fmt::format("attaching to sys_enter/sys_exit/sched_process_fork failed: {}", strerror(-err)));
  return skel;
}

struct Config {
  uint64_t calls = 2'000'000;
  uint32_t threads = 1;
  uint32_t rounds = 5;
  std::string recorder;  // an fsreplay binary, or empty
  std::string self;      // this program, for the storm child
  std::string tmp;       // a private directory: the recorder's trace, log and empty --root
};

std::vector<std::string> storm_argv(const Config& cfg) {
  return {cfg.self, "--storm", "--calls", std::to_string(cfg.calls), "--threads", std::to_string(cfg.threads)};
}

Result<uint64_t> run_untraced(const Config& cfg) {
  FSR_ASSIGN_OR_RETURN(auto c, spawn(storm_argv(cfg), STDERR_FILENO));
  return storm_ns(c, "untraced");
}

Result<uint64_t> run_level(const Config& cfg, uint32_t level) {
  FSR_ASSIGN_OR_RETURN(auto c, spawn(storm_argv(cfg), STDERR_FILENO));
  FSR_ASSIGN_OR_RETURN(auto skel, attach_floor(level, c.pid));  // attached while it lives
  const char go = 1;
  if (write(c.in.get(), &go, 1) != 1) return Status::error(fmt::format("starting the storm: {}", strerror(errno)));
  return storm_ns(c, fmt::format("level {}", level));
}

// The last line the recorder wrote on stderr (its summary: events, drops).
std::string last_line(const std::string& path) {
  std::ifstream f(path);
  std::string line, last;
  while (std::getline(f, line))
    if (!line.empty()) last = line;
  return last;
}

Result<uint64_t> run_recorder(const Config& cfg) {
  const std::string log = cfg.tmp + "/record.log";
  UniqueFd err(open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
  if (!err.valid()) return Status::error(fmt::format("{}: {}", log, strerror(errno)));
  std::vector<std::string> argv = {
      cfg.recorder,       "record", "--allow-drops", "--no-page-faults", "-o", cfg.tmp + "/floor.trace", "--root",
      cfg.tmp + "/empty", "--"};
  for (auto& a : storm_argv(cfg)) argv.push_back(std::move(a));
  FSR_ASSIGN_OR_RETURN(auto c, spawn(argv, err.get()));
  auto ns = storm_ns(c, cfg.recorder + " record");
  if (!ns) return Status::error(ns.message() + "; its last words: " + last_line(log));
  return ns;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

bool bpf_stats_enabled() {
  std::ifstream f("/proc/sys/kernel/bpf_stats_enabled");
  int on = 0;
  return (f >> on) && on != 0;
}

int bench(const Config& cfg) {
  struct Variant {
    const char* name;
    const char* step;  // what it adds to the variant above it
    std::function<Result<uint64_t>()> run;
    std::vector<double> wall_ns = {};
  };
  std::vector<Variant> vs = {{"untraced", "", [&] { return run_untraced(cfg); }},
                             {"level 0", "tracepoint dispatch (2 empty programs)", [&] { return run_level(cfg, 0); }},
                             {"level 1", "+ rodata test, task storage", [&] { return run_level(cfg, 1); }},
                             {"level 2", "+ 2 bpf_ktime_get_ns", [&] { return run_level(cfg, 2); }}};
  if (!cfg.recorder.empty()) vs.push_back({"recorder", "+ the recorder's own work", [&] { return run_recorder(cfg); }});

  // One untimed storm first: the binary's pages and the CPUs' state are then
  // the same for the first round's first variant as for every later one.
  if (auto warm = run_untraced(cfg); !warm) {
    fmt::print(stderr, "{}: {}\n", kName, warm.message());
    return fsr::cli::kExitError;
  }
  for (uint32_t r = 0; r < cfg.rounds; ++r) {
    for (Variant& v : vs) {
      Result<uint64_t> ns = v.run();
      if (!ns) {
        fmt::print(stderr, "{}: {}\n", kName, ns.message());
        return fsr::cli::kExitError;
      }
      v.wall_ns.push_back(static_cast<double>(*ns));
    }
  }

  fmt::print("fstat storm: {} calls x {} thread(s), {} round(s) (each runs every variant once, in this order)\n",
             cfg.calls, cfg.threads, cfg.rounds);
  fmt::print(
      "added = (variant wall - untraced wall, same round) / calls per thread: ns of wall time each\n"
      "syscall costs more on its thread (threads run in parallel); step = the same against the row above.\n"
      "Figures are medians over rounds; the range is the step's lowest and highest round (noise).\n");
  if (bpf_stats_enabled())
    fmt::print("note: kernel.bpf_stats_enabled=1: every program run also reads the clock twice (included below)\n");
  fmt::print("{:<10} {:>10} {:>15} {:>14} {:>17}  {}\n", "variant", "wall ms", "added ns/call", "step ns/call",
             "step range", "step");
  const double per_call = static_cast<double>(cfg.calls);
  for (size_t i = 0; i < vs.size(); ++i) {
    std::vector<double> added, step;
    for (uint32_t r = 0; r < cfg.rounds; ++r) {
      added.push_back((vs[i].wall_ns[r] - vs[0].wall_ns[r]) / per_call);
      if (i > 0) step.push_back((vs[i].wall_ns[r] - vs[i - 1].wall_ns[r]) / per_call);
    }
    const double wall_ms = median(vs[i].wall_ns) / 1e6;
    if (i == 0)
      fmt::print("{:<10} {:>10.1f} {:>15} {:>14} {:>17}\n", vs[i].name, wall_ms, "-", "-", "-");
    else
      fmt::print("{:<10} {:>10.1f} {:>15.1f} {:>14.1f} {:>17}  {}\n", vs[i].name, wall_ms, median(added), median(step),
                 fmt::format("{:.0f}..{:.0f}", *std::min_element(step.begin(), step.end()),
                             *std::max_element(step.begin(), step.end())),
                 vs[i].step);
  }
  if (!cfg.recorder.empty()) fmt::print("recorder, last round: {}\n", last_line(cfg.tmp + "/record.log"));
  return fsr::cli::kExitOk;
}

// --run: CMD under `level`, held by the recorder's launcher (spawn_held)
// until the programs filter on its pid, run as the invoking user as `record`
// runs it. Its exit status, 128 + signal, or 127 if it could not start.
int run_command(uint32_t level, const std::vector<std::string>& cmd) {
  auto child = fsr::spawn_held(cmd, fsr::invoking_user());
  if (!child) {
    fmt::print(stderr, "{}: {}\n", kName, child.message());
    return 127;
  }
  auto skel = attach_floor(level, child->pid(), true);
  if (!skel) {
    fmt::print(stderr, "{}: {}\n", kName, skel.message());
    return fsr::cli::kExitError;  // the held child is killed and reaped
  }
  if (Status r = child->release(); !r) {
    fmt::print(stderr, "{}: {}\n", kName, r.message());
    return 127;
  }
  int st = 0;
  while (waitpid(child->pid(), &st, 0) < 0 && errno == EINTR) {}
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

// A private directory under /tmp, removed with everything in it.
struct TempDir {
  std::string path;
  ~TempDir() {
    if (!path.empty()) std::filesystem::remove_all(path);
  }
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Floor of BPF syscall recording: an fstat storm untraced, under empty sys_enter/sys_exit "
      "programs, with task storage, with clock reads, and under the recorder. Needs root."};
  Config cfg;
  bool storm = false;
  app.add_option("--calls", cfg.calls, "fstat calls per thread")->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--threads", cfg.threads, "Storm threads (at most the CPU count for per-call figures)")
      ->capture_default_str()
      ->check(CLI::Range(1, 64));
  app.add_option("--rounds", cfg.rounds, "Rounds; every round runs every variant once")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  app.add_option("--recorder", cfg.recorder, "An fsreplay binary: also measure `fsreplay record`")
      ->check(CLI::ExistingFile);
  app.add_flag("--storm", storm, "Run the storm itself (the child of every variant)")->group("");
  int run_level = -1;
  std::vector<std::string> command;
  app.add_option("--run", run_level,
                 "Instead of the storm: run `-- CMD ARGS...` and its children under this level (0-2) "
                 "and pass its exit status through")
      ->check(CLI::Range(0, 2));
  app.add_option("command", command, "-- CMD ARGS... (with --run)");
  CLI11_PARSE(app, argc, argv);

  if (storm) return run_storm(cfg.calls, cfg.threads);
  if ((run_level >= 0) != !command.empty()) {
    fmt::print(stderr, "{}: --run LEVEL and -- CMD ARGS... go together\n", kName);
    return fsr::cli::kExitUsage;
  }
  if (geteuid() != 0) {
    fmt::print(stderr, "{}: run as root (it loads BPF programs)\n", kName);
    return fsr::cli::kExitNoPrivilege;
  }
  libbpf_set_print(libbpf_quiet);
  if (run_level >= 0) return run_command(static_cast<uint32_t>(run_level), command);
  std::error_code ec;
  cfg.self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) {
    fmt::print(stderr, "{}: cannot find its own binary (/proc/self/exe): {}\n", kName, ec.message());
    return fsr::cli::kExitError;
  }
  if (!cfg.recorder.empty()) cfg.recorder = std::filesystem::absolute(cfg.recorder);
  TempDir tmp;
  char tmpl[] = "/tmp/fsreplay-floor-XXXXXX";
  if (mkdtemp(tmpl)) tmp.path = cfg.tmp = tmpl;
  if (tmp.path.empty() || mkdir((cfg.tmp + "/empty").c_str(), 0700) != 0) {
    fmt::print(stderr, "{}: cannot make a directory under /tmp: {}\n", kName, strerror(errno));
    return fsr::cli::kExitError;
  }
  return bench(cfg);
}
