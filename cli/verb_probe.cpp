// SPDX-License-Identifier: Apache-2.0
// fsreplay probe DIR [-o PROFILE] [--duration S]: measure the mount holding
// DIR (probe) and write its profile for `fsreplay predict`.
#include <csignal>
#include <iostream>

#include <fmt/format.h>

#include "cli/cli_util.h"
#include "probe/prober.h"
#include "cli/verbs.h"
#include "traces/profile.h"

namespace fsr::cli {
namespace {
std::atomic<bool> g_stop{false};
std::atomic<int> g_stop_signal{0};  // the first of SIGINT, SIGTERM, SIGHUP
extern "C" void on_stop_signal(int sig) {
  int none = 0;
  g_stop_signal.compare_exchange_strong(none, sig);
  g_stop.store(true);
}
}  // namespace

Action add_probe_verb(CLI::App& app) {
  struct Opts {
    std::string dir, output, name;
    double duration = 60;
    uint32_t samples = 8;
    bool no_drop = false, json = false, busy = false, quick = false;
  };
  auto o = std::make_shared<Opts>();
  auto* sub =
      app.add_subcommand("probe", "Measure a mount's latencies (stat, open, read, write, readdir, ...) into a profile");
  sub->add_option("DIR", o->dir,
                  "A writable directory on the mount (the probe works in a private subdirectory "
                  "and removes it)")
      ->required();
  sub->add_option("--output,-o", o->output, "Profile to write (default: NAME.profile)");
  sub->add_option("--duration", o->duration,
                  fmt::format("Time budget in seconds (default 60; at least {:g}: the stale-entry cases stat files up "
                              "to 4 s after their last use, so a smaller budget is raised to {:g}, with a note)",
                              kProbeMinDurationS, kProbeMinDurationS))
      ->check(CLI::Range(1.0, 3600.0));
  sub->add_option("--name", o->name, "Name of the profile (default: the mount kind, e.g. 9p-drvfs)");
  sub->add_option("--samples", o->samples, "Samples per case and round (default 8)")->check(CLI::Range(1, 64));
  sub->add_flag("--no-drop-caches", o->no_drop,
                "Never drop the kernel's caches (as root they are dropped before cold rounds)");
  sub->add_flag("--busy-cpus", o->busy,
                "Keep the other CPUs busy with spinners at nice 19 while measuring, as a replay's own threads keep "
                "them: a server in another process (FUSE, sshfs) wakes faster on a busy CPU than on a halted vCPU "
                "(bindfs on a 2-vCPU VM: 4-6x); the profile says so. Which state a workload and its replay run in "
                "varies (dev/bench/idle-cpu.sh); off by default");
  sub->add_flag("--quick", o->quick,
                "Skip the concurrency sweep (1, 2, 4, 8 streams) and the bandwidth runs: the profile then has no "
                "server model (slots, service time, bandwidth), and predict prices every op as if the mount scaled");
  sub->add_flag("--json", o->json, "Print the profile as JSON instead of a table");
  sub->footer(
      "Exit codes: 0 ok, 1 error, 2 usage, 128+N stopped by signal N (SIGINT 130, SIGTERM 143, SIGHUP 129; "
      "the private directory is removed first, no profile is written).");
  return [o]() -> int {
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &sa, nullptr);
    if (o->duration < kProbeMinDurationS) {
      fmt::print(stderr,
                 "fsreplay probe: --duration {:g} is below the probe's floor: probing for {:g} s (the "
                 "stale-entry cases stat files up to 4 s after their last use)\n",
                 o->duration, kProbeMinDurationS);
      o->duration = kProbeMinDurationS;
    }
    ProbeOptions po;
    po.dir = o->dir;
    po.name = o->name;
    po.duration_s = o->duration;
    po.samples = o->samples;
    po.drop_caches = !o->no_drop;
    po.busy_cpus = o->busy;
    po.measure_server = !o->quick;
    po.stop = &g_stop;
    po.on_notice = [](const std::string& line) { fmt::print(stderr, "fsreplay probe: {}\n", line); };
    const bool tty = stderr_is_tty();
    if (tty)
      po.progress = [&](double t, double budget, uint32_t rounds) {
        fmt::print(stderr, "\rfsreplay probe {}: {:.0f}/{:.0f} s, {} rounds ", o->dir, t, budget, rounds);
      };
    auto p = run_probe(po);
    if (tty) fmt::print(stderr, "\n");
    if (!p) return fail("probe", p.message(), g_stop.load() ? kExitSignalBase + g_stop_signal.load() : kExitError);
    const std::string out = o->output.empty() ? p->name + ".profile" : o->output;
    if (Status st = write_profile(out, *p); !st) return fail("probe", st.message());
    std::cout << (o->json ? profile_to_json(*p) : profile_to_text(*p));
    fmt::print(stderr, "fsreplay probe: {} cases of {} in {:.1f} s ({} rounds) -> {}\n", p->cases.size(), p->target,
               double(p->duration_ns) / 1e9, p->rounds, out);
    return kExitOk;
  };
}

}  // namespace fsr::cli
