// SPDX-License-Identifier: Apache-2.0
#include "probe/prober.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string_view>
#include <vector>
#include <cstring>
#include <algorithm>
#include <iterator>
#include <optional>
#include <random>

#include <fmt/format.h>

#include "replayer/engine/engine.h"
#include "replayer/exec/executor.h"
#include "replayer/exec/features.h"
#include "replayer/session/prepare.h"
#include "detect/detect.h"
#include "probe/cpu_spinners.h"
#include "probe/probe_cases.h"
#include "probe/probe_profile.h"
#include "probe/server_probe.h"
#include "base/clock.h"
#include "base/unique_fd.h"

namespace fsr {
namespace {

struct Session {
  std::string dir;           // the probed directory (real path)
  std::string priv;          // P, relative to dir
  UniqueFd dir_fd, priv_fd;  // closed after ~Session's remove(), priv_fd first
  Features features;
  const std::atomic<bool>* stop = nullptr;
  ProbeSamples samples;

  bool stopped() const { return stop && stop->load(std::memory_order_relaxed); }

  // Removes `rel` (below dir) and everything in it, never following a link.
  Status remove(const std::string& rel) {
    TreeSpec gone;
    gone.created.push_back({Root::kTarget, rel});
    const int roots[2] = {dir_fd.get(), dir_fd.get()};
    return materialise(gone, roots, features, 1, nullptr).status();
  }

  ~Session() {  // on every path out: success, error, Ctrl-C
    // No one to tell on the way out: a private directory left behind is
    // removed by the next probe of this directory (clear_stale_probe_dirs).
    if (dir_fd.valid() && !priv.empty()) (void)remove(priv);
  }
};

Status interrupted(const Session& s) {
  return Status::error("interrupted; removed " + s.dir + "/" + s.priv + " (no profile written)");
}

// Issues a script's ops one by one through the executor, timing the tagged ones.
Status run_script(Session& s, const ProbeScript& script) {
  const std::vector<Event>& ev = script.events();
  const Plan plan = script.plan(s.dir, s.dir + "/" + s.priv);
  ExecEnv env;
  env.root[0] = s.dir_fd.get();
  env.root[1] = s.priv_fd.get();
  env.root_path[0] = s.dir;
  env.root_path[1] = s.dir + "/" + s.priv;
  env.features = &s.features;
  env.plan = &plan;
  init_exec_env(env);
  std::vector<char> buf(max_io_size(plan), 'f');
  DirCache dirs(&env.tree_gen);  // as a replay's worker has it
  Status st;
  std::string last_failure;
  for (uint32_t i = 0; i < ev.size() && st; ++i) {
    if (s.stopped()) {
      st = interrupted(s);
      break;
    }
    const ProbeTag& tag = script.tags()[i];
    uint16_t flags = 0;
    int64_t ret = ev[i].ret;
    uint64_t ns = 0;
    const bool issued = plan.ops[i].action == OpAction::kIssue;
    if (issued && tag.idle_us) {
      timespec idle{0, static_cast<long>(tag.idle_us) * 1000};
      while (nanosleep(&idle, &idle) == -1 && errno == EINTR) {}
    }
    if (issued) {
      const uint64_t t0 = mono_ns();
      ret = execute_op(i, env, buf.data(), buf.size(), flags, &dirs);
      ns = mono_ns() - t0;
    }
    apply_closes(i, env);
    const bool as_recorded = tag.any_result || (ret < 0) == (ev[i].ret < 0);
    if (!tag.timed) {
      if (!as_recorded && ev[i].ret >= 0)
        st =
            Status::error(fmt::format("cannot prepare the probe's files in {}/{}: {} of {} failed: {}", s.dir, s.priv,
                                      syscall_name(ev[i].nr), script.str(ev[i].path[0] ? ev[i].path[0] : ev[i].path[1]),
                                      std::strerror(static_cast<int>(-ret))) +
                          last_failure);
      continue;
    }
    if (!issued || (flags & kOfSkipped) || !as_recorded) {
      s.samples.fail(tag.kind, ret);
      last_failure = fmt::format(" (after {} of {} returned {})", syscall_name(ev[i].nr),
                                 script.str(ev[i].path[0] ? ev[i].path[0] : ev[i].path[1]), ret);
      continue;
    }
    s.samples.add(tag.kind, tag.temp, tag.param_is_ret ? static_cast<uint64_t>(std::max<int64_t>(ret, 0)) : tag.param,
                  ns);
  }
  release_all(env);
  return st;
}

// Drops the page cache of the round's data files and the kernel's dentries
// and inodes (root only). False when the kernel refused.
bool drop_caches(Session& s, const std::vector<std::string>& files) {
  for (const std::string& f : files) {
    const UniqueFd fd(openat(s.priv_fd.get(), f.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
    if (fd.valid()) posix_fadvise(fd.get(), 0, 0, POSIX_FADV_DONTNEED);
  }
  syncfs(s.priv_fd.get());
  const UniqueFd fd(::open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC));
  return fd.valid() && ::write(fd.get(), "2\n", 2) == 2;
}

// Private directories of earlier probes in the probed directory: those
// whose probe no longer runs (killed: its PID is gone) are removed (or named
// with why they could not be), the others are named (a probe running there
// disturbs this one's timings).
// Said in one line each through on_notice. (A probe of another PID
// namespace sharing the directory looks dead from here: a rare setup.)
void clear_stale_probe_dirs(const ProbeOptions& o, Session& s) {
  constexpr std::string_view kPrefix = ".fsreplay-probe-";
  std::vector<std::string> removed, running, failed;
  {
    const int fd = openat(s.dir_fd.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR* d = fd >= 0 ? fdopendir(fd) : nullptr;
    if (!d && fd >= 0) close(fd);
    std::vector<std::pair<std::string, pid_t>> found;
    while (d) {
      const dirent* e = readdir(d);
      if (!e) break;
      const std::string_view name = e->d_name;
      if (name.substr(0, kPrefix.size()) != kPrefix || name == s.priv) continue;
      char* end = nullptr;
      const long pid = std::strtol(e->d_name + kPrefix.size(), &end, 10);
      struct stat st;
      if (pid <= 0 || !end || *end != '-' || fstatat(s.dir_fd.get(), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
          !S_ISDIR(st.st_mode))
        continue;
      found.emplace_back(std::string(name), static_cast<pid_t>(pid));
    }
    if (d) closedir(d);
    for (const auto& [name, pid] : found) {
      if (pid != getpid() && kill(pid, 0) != 0 && errno == ESRCH) {
        if (Status st = s.remove(name); st)
          removed.push_back(name);
        else
          failed.push_back(name + " (" + st.message() + ")");
      } else {
        running.push_back(fmt::format("{} (pid {})", name, pid));
      }
    }
  }
  if (!o.on_notice) return;
  auto list = [](const std::vector<std::string>& v) {
    std::string out;
    for (size_t i = 0; i < v.size() && i < 3; ++i) out += (i ? ", " : "") + v[i];
    return v.size() > 3 ? out + fmt::format(" and {} more", v.size() - 3) : out;
  };
  if (!removed.empty())
    o.on_notice(fmt::format("removed {} private director{} of probes killed earlier from {}: {}", removed.size(),
                            removed.size() == 1 ? "y" : "ies", s.dir, list(removed)));
  if (!failed.empty())
    o.on_notice(fmt::format("could not remove {} private director{} of probes killed earlier from {}: {}",
                            failed.size(), failed.size() == 1 ? "y" : "ies", s.dir, list(failed)));
  if (!running.empty())
    o.on_notice(
        fmt::format("{} has the private director{} of a probe still running: {}; left in place (its I/O "
                    "disturbs this probe's timings: let it finish first)",
                    s.dir, running.size() == 1 ? "y" : "ies", list(running)));
}

Status open_session(const ProbeOptions& o, Session& s) {
  char* real = realpath(o.dir.c_str(), nullptr);
  if (!real)
    return Status::error(o.dir + ": " + std::strerror(errno) + " (give an existing directory on the mount to probe)");
  s.dir = real;
  free(real);
  s.dir_fd.reset(::open(s.dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!s.dir_fd.valid()) return Status::error(s.dir + ": not a directory we can open: " + std::strerror(errno));
  std::mt19937_64 rng(std::random_device{}());
  for (int attempt = 0; attempt < 8; ++attempt) {
    s.priv = fmt::format(".fsreplay-probe-{}-{:06x}", getpid(), rng() & 0xffffff);
    if (mkdirat(s.dir_fd.get(), s.priv.c_str(), 0700) == 0) break;
    if (errno != EEXIST) {
      const int err = errno;
      s.priv.clear();
      return Status::error(s.dir + ": cannot create the probe's private directory: " + std::strerror(err) +
                           " (the probe needs write access to the mount)");
    }
  }
  s.priv_fd.reset(openat(s.dir_fd.get(), s.priv.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!s.priv_fd.valid()) return Status::error(s.dir + "/" + s.priv + ": " + std::strerror(errno));
  s.features = Features::probe(s.priv_fd.get(), {});
  clear_stale_probe_dirs(o, s);
  return Status::ok();
}

// The sweep and the bandwidths (server_probe.h) in P/server, removed after.
Status measure_server(Session& s, double budget, Profile& p) {
  const std::string sdir = s.priv + "/server";
  if (mkdirat(s.dir_fd.get(), sdir.c_str(), 0700) != 0)
    return Status::error(s.dir + "/" + sdir + ": cannot create: " + std::strerror(errno));
  const UniqueFd sfd(openat(s.dir_fd.get(), sdir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  Status st = sfd.valid() ? probe_server(sfd.get(), s.dir + "/" + sdir, budget, s.stop, p)
                          : Status::error(s.dir + "/" + sdir + ": " + std::strerror(errno));
  if (s.stopped()) return interrupted(s);
  FSR_RETURN_IF_ERROR(st);
  return s.remove(sdir);
}

}  // namespace

Result<Profile> run_probe(const ProbeOptions& o) {
  Profile p;
  p.started_wall_ns = now_ns(CLOCK_REALTIME);
  const uint64_t start = mono_ns();
  Session s;
  s.stop = o.stop;
  prepare_worker_thread();  // the replay's timer slack: idle gaps as precise as a replay's sleeps
  FSR_RETURN_IF_ERROR(open_session(o, s));
  auto env = detect_environment(s.dir);
  p.target = s.dir;
  p.environment_json = env ? environment_to_json(env.value()) : std::string("{}");
  p.name = !o.name.empty() ? o.name : env ? env->mount_class.kind : std::string("unknown");
  p.syscall_overhead_ns = measure_syscall_overhead_ns();
  std::optional<CpuSpinners> spinners;  // stopped on every way out, before the private directory goes
  if (o.busy_cpus) {
    spinners.emplace();
    p.busy_cpus = spinners->count();
    if (spinners->niced() < spinners->count())
      p.notes.push_back("the kernel refused nice 19 to the CPU spinners: they ran at the probe's priority");
  }
  const double budget = o.duration_s;
  auto elapsed = [&] { return double(mono_ns() - start) / 1e9; };
  auto report = [&](uint32_t rounds) {
    if (o.progress) o.progress(elapsed(), budget, rounds);
  };

  // Before the fixture: its stale sets are timed from their touch.
  if (o.measure_server) FSR_RETURN_IF_ERROR(measure_server(s, budget, p));
  ProbeScript fixture(s.priv);
  fixture_setup(fixture);
  stale_setup(fixture);
  FSR_RETURN_IF_ERROR(run_script(s, fixture));
  const uint64_t touched = mono_ns();
  constexpr size_t kDelays = std::size(kStaleDelaysMs);
  bool stale_done[kDelays] = {};
  auto stale_due = [&](bool wait) -> Status {
    for (size_t k = 0; k < kDelays; ++k) {
      if (stale_done[k]) continue;
      const uint64_t due = touched + kStaleDelaysMs[k] * 1'000'000ull;
      while (wait && mono_ns() < due && !s.stopped()) {
        timespec ts{0, 20'000'000};
        nanosleep(&ts, nullptr);
      }
      if (mono_ns() < due) continue;
      ProbeScript sc(s.priv);
      stale_measure(sc, k);
      FSR_RETURN_IF_ERROR(run_script(s, sc));
      stale_done[k] = true;
    }
    return s.stopped() ? interrupted(s) : Status::ok();
  };

  bool can_drop = o.drop_caches && geteuid() == 0;
  uint32_t cold_done = 0;
  double last_round = 0;
  for (uint32_t r = 0; r < o.max_rounds; ++r) {
    if (r >= 2 && elapsed() + last_round > budget * 0.97 && (cold_done > 0 || !can_drop)) break;
    const double t0 = elapsed();
    // Cold rounds only once the stale sets are measured: a cache drop would make them cold.
    const bool stale_pending = std::find(std::begin(stale_done), std::end(stale_done), false) != std::end(stale_done);
    const bool last = r + 1 >= o.max_rounds;
    if (stale_pending && can_drop && cold_done == 0 && (last || (r >= 2 && elapsed() + last_round > budget * 0.9)))
      FSR_RETURN_IF_ERROR(stale_due(true));  // the budget ends soon: finish the stale sets first
    const bool cold = can_drop && cold_done < o.cold_rounds && (r % 2 == 0 || (last && cold_done == 0)) &&
                      std::find(std::begin(stale_done), std::end(stale_done), false) == std::end(stale_done);
    RoundSpec spec{r, cold, o.samples, std::max(1u, o.samples / 4)};
    ProbeScript setup(s.priv), measure(s.priv);
    round_setup(setup, spec);
    FSR_RETURN_IF_ERROR(run_script(s, setup));
    if (spec.cold && !drop_caches(s, round_data_files(spec))) {
      can_drop = spec.cold = false;
      p.notes.push_back("the kernel refused to drop caches: cold cases not measured");
    }
    cold_done += spec.cold;
    round_measure(measure, spec);
    FSR_RETURN_IF_ERROR(run_script(s, measure));
    FSR_RETURN_IF_ERROR(s.remove(s.priv + "/" + round_dir(spec)));
    FSR_RETURN_IF_ERROR(stale_due(false));
    p.rounds = r + 1;
    last_round = elapsed() - t0;
    report(p.rounds);
    if (s.stopped()) return interrupted(s);
  }
  FSR_RETURN_IF_ERROR(stale_due(true));
  p.cold_measured = cold_done > 0;
  if (!p.cold_measured && !o.drop_caches)
    p.notes.push_back("caches not dropped (--no-drop-caches): cold cases of existing files not measured");
  else if (!p.cold_measured && geteuid() != 0)
    p.notes.push_back("not root: caches could not be dropped, cold cases of existing files not measured");
  finish_profile(s.samples, kProbeRefDepth, p);
  p.duration_ns = mono_ns() - start;
  report(p.rounds);
  return p;
}

}  // namespace fsr
