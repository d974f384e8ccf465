// SPDX-License-Identifier: Apache-2.0
// The replay's session: see session.h.
#include "replayer/session/session.h"

#include <fcntl.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>
#include <thread>

#include "replayer/exec/features.h"
#include "replayer/engine/interrupt.h"
#include "replayer/plan/plan_stream.h"
#include "replayer/engine/replay_cost.h"
#include "replayer/session/replay_summary.h"
#include "replayer/exec/resolver.h"
#include "replayer/session/result_writer.h"
#include "replayer/session/root_policy.h"
#include "replayer/plan/speed_hazards.h"
#include "replayer/plan/survey.h"
#include "replayer/session/target_guard.h"
#include "traces/op_path.h"
#include "traces/trace_id.h"
#include "traces/trace_reader.h"
#include "base/text_safe.h"

namespace fsr::replay_session {
// Prestate entries room is made for up front, at most: the count comes from
// the trace's index, which a damaged file may inflate (beyond it, tables grow).
constexpr uint64_t kMaxPrestateReserve = 1u << 24;

uint64_t window_of(const ReplayOptions& o) { return plan_window(o.window); }

Result<std::unique_ptr<TraceReader>> open_trace(const std::string& path) {
  FSR_ASSIGN_OR_RETURN(std::unique_ptr<TraceReader> r, TraceReader::open(path));
  if (r->kind() != PayloadKind::kTrace)
    return wrong_kind(path, r->kind(), PayloadKind::kTrace, "pass the trace made by 'fsreplay record'");
  return r;
}

std::vector<Feature> forced_off(const ReplayOptions& o, Status& st) {
  std::vector<Feature> v;
  for (const auto& n : o.disable_features) {
    auto f = feature_from_name(n);
    if (!f)
      st = f.status();
    else
      v.push_back(f.value());
  }
  return v;
}

// The replay's writes against the free space of the directory they land in
// (after the tree is prepared): past it they fail with ENOSPC, divergences
// of a full disk, not of the replay. Said before the clock; "" when they fit.
std::string space_warning(const Roots& roots, const uint64_t (&written)[2]) {
  const std::string* dirs[2] = {&roots.target, &roots.scratch};
  for (int r = 0; r < 2; ++r) {
    struct statvfs v;
    if (written[r] == 0 || roots.fd[r] < 0 || fstatvfs(roots.fd[r], &v) != 0) continue;
    const uint64_t free_bytes = static_cast<uint64_t>(v.f_bavail) * v.f_frsize;
    if (written[r] > free_bytes)
      return "the trace's writes to " + std::string(r == 0 ? "the target " : "the scratch directory ") + *dirs[r] +
             " come to " + std::to_string(written[r] >> 20) + " MiB and it has " + std::to_string(free_bytes >> 20) +
             " MiB free: unless the workload removed as much as it wrote, the replay runs out of space and its "
             "writes fail (divergences of a full disk); free space or choose another " +
             (r == 0 ? "--target" : "--scratch");
  }
  return {};
}

ProgressFn phase_progress(const ReplayOptions& o, const char* phase) {
  if (!o.progress || !o.on_progress) return nullptr;
  auto cb = o.on_progress;
  return [cb, phase](uint64_t d, uint64_t t) { cb(phase, d, t, {}); };
}

std::string signal_name(int sig) {
  const char* n = sigabbrev_np(sig);
  return n ? "SIG" + std::string(n) : "signal " + std::to_string(sig);
}

// The target, and a scratch the user gave, claimed for this trace
// (target_guard.h); the writable and room checks of both.
Status claim_roots(Session& s, const std::string& trace_path, const ReplayOptions& o) {
  const TreeSpec& spec = s.survey.spec;
  for (int k = 0; k < 2; ++k) {
    if (k == 1 && s.roots.scratch_is_ours) continue;  // made empty by mkdtemp, removed after
    const Root which = k == 0 ? Root::kTarget : Root::kScratch;
    ClaimRequest req{.what = k == 0 ? "target" : "scratch",
                     .dir = k == 0 ? s.roots.target : s.roots.scratch,
                     .trace_path = real_path(trace_path),
                     .recording = format_trace_id(s.trace_id),
                     .force = o.force};
    FSR_RETURN_IF_ERROR(claim_root(s.roots.fd[k], req, spec, which, s.claim[k], o.on_warning));
    if (s.claim[k].other_trace) {
      if (!o.prepare)
        return Status::error(req.what + " " + req.dir + " was prepared for another trace (" +
                             s.claim[k].other_trace_path + "): run 'fsreplay prepare " + trace_path + " --target " +
                             s.roots.target + "' first");
      if (o.on_warning)
        o.on_warning(req.what + " " + req.dir + " was prepared for another trace (" + s.claim[k].other_trace_path +
                     "): what it holds is fsreplay's and is cleared first");
      s.wrote = true;
      FSR_RETURN_IF_ERROR(clear_root(s.roots.fd[k], req.dir));
    }
  }
  // Room for the tree in both (a hostile trace's 1 TiB file fills the
  // scratch's file system as surely as the target's).
  for (int k = 0; k < 2; ++k) {
    std::string warning;
    FSR_RETURN_IF_ERROR(check_root_writable(s.roots.fd[k], k == 0 ? s.roots.target : s.roots.scratch, spec,
                                            k == 0 ? Root::kTarget : Root::kScratch, &warning));
    if (!warning.empty() && o.on_warning) o.on_warning(warning);
  }
  PlaceContext pc;
  pc.target_fd = s.roots.fd[0];
  pc.target = s.roots.target;
  pc.claim.trace_path = real_path(trace_path);
  pc.claim.recording = format_trace_id(s.trace_id);
  pc.claim.force = o.force;
  pc.prepare = o.prepare;
  pc.warn = o.on_warning;
  return mount_placed(o.place, pc, s.survey.spec, s.placed, s.wrote);
}

// An interrupted prepare: a root that held only fsreplay's files is emptied
// (and unmarked: it is as fsreplay found it, or holds nothing of a tree that
// was half made); one taken with --force is left as it is. Says which.
std::string undo_prepare(Session& s) {
  std::string said;
  for (auto& p : s.placed) p->unmount();  // (the target is cleared without them; undo_placed clears them)
  for (int k = 0; k < 2; ++k) {
    if (k == 1 && s.roots.scratch_is_ours) continue;  // (removed with the session)
    const std::string& dir = k == 0 ? s.roots.target : s.roots.scratch;
    const std::string what = k == 0 ? "the target " : "the scratch ";
    if (!s.claim[k].held()) continue;
    if (!s.claim[k].owned_all) {
      said += "; " + what + dir + " is left partly prepared (it held other files: --force)";
      continue;
    }
    Status c = clear_root(s.roots.fd[k], dir);
    if (c) {
      s.claim[k].release_and_unmark(s.roots.fd[k]);
      said += "; " + what + dir + " was emptied";
    } else {
      said += "; " + what + dir + " could not be emptied: " + c.message();
    }
  }
  said += undo_placed(s.placed);
  if (s.roots.scratch_is_ours) said += "; the scratch " + s.roots.scratch + " was removed";
  return said;
}

// The survey pass: the trace read once, chunk by chunk.
Result<std::unique_ptr<Session>> open_session(const std::string& trace_path, const ReplayOptions& o,
                                              const ProgressFn& progress) {
  auto s = std::make_unique<Session>();
  FSR_ASSIGN_OR_RETURN(const std::unique_ptr<TraceReader> rd, open_trace(trace_path));
  TraceReader& reader = *rd;
  s->header = reader.header();
  FSR_RETURN_IF_ERROR(open_roots(trace_path, o, s->roots));
  Status bad;
  auto off = forced_off(o, bad);
  FSR_RETURN_IF_ERROR(bad);
  s->features = Features::probe(s->roots.fd[0], off);
  const TraceHeader& h = s->header;
  s->in.recorded_root = h.root.empty() ? "/" : h.root;
  s->in.target_dir = s->roots.target;
  s->in.scratch_dir = s->roots.scratch;
  s->in.initial = h.initial;
  s->in.mmap_touch = o.mmap_touch;
  s->in.serial_dirs = o.serial_dirs;
  s->in.walks_as_passed = o.walks_as_passed && h.has_choice(kRecorderChoiceWalks);
  TraceReader* rp = &reader;
  // The index's count of events, when there is one: a short trace's survey
  // gets the window it needs, as its plan will (fit_window).
  auto event_count = reader.record_count();
  const uint64_t events_total = event_count ? event_count.value() : 0;
  SurveyBuilder sb(
      s->in, [rp](StrId id) { return rp->str(id); },
      event_count ? fit_window(window_of(o), events_total) : window_of(o));
  // The prestate block by block: only the tree it makes is held (tree_spec.h).
  {
    auto count = reader.prestate_count();
    const uint64_t total = count ? count.value() : 0;
    sb.reserve_prestate(std::min(total, kMaxPrestateReserve));
    const ProgressFn pp = phase_progress(o, "prestate");
    uint64_t read = 0;
    auto block = [&](std::span<const PrestateEntry> b) {
      sb.add_prestate(b);
      read += b.size();
      if (pp) pp(read, total);
      return Status::ok();
    };
    FSR_RETURN_IF_ERROR(reader.for_each_prestate(block));
  }
  std::vector<Event> chunk;
  uint64_t n = 0;
  SpeedHazards hazards(h.wall_start_ns, [rp](StrId id) { return rp->str(id); });
  while (true) {
    FSR_ASSIGN_OR_RETURN(const bool more, reader.next(chunk));
    if (!more) break;
    for (const Event& e : chunk) {
      sb.add(e);
      hazards.add(e);
    }
    n += chunk.size();
    if (int sig = stop_signal())
      return Status::error("stopped by " + signal_name(sig) + " while reading the trace: nothing was written",
                           StatusCode::kInterrupted);
    if (progress) progress(n, events_total);
    if (n >= kNoOp - 1) return Status::error(trace_path + ": more than 4G events, split the trace");
  }
  // A damaged trace replays only what is readable; an unreadable one is an error, never 0 ops.
  const ReadProblems& pr = reader.problems();
  if (n == 0 && (!pr.complete() || pr.missing_records > 0))
    return Status::error(trace_path + ": no readable events (" +
                             (pr.messages.empty() ? std::string("damaged or truncated") : pr.messages.front()) +
                             "); check it with 'fsreplay inspect', or record it again with this version",
                         StatusCode::kDamaged);
  s->problems = pr.messages;
  s->hazards = hazards.warnings();
  s->footer = reader.footer();  // (read last: it follows the events)
  s->trace_id = reader.trace_id();
  s->survey = sb.finish();
  return s;
}

}  // namespace fsr::replay_session
