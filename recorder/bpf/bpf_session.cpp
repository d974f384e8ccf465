// SPDX-License-Identifier: Apache-2.0
#include "recorder/bpf/bpf_session.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "bpf/fsreplay_record.h"
#include "fsreplay_record.skel.h"
#include "recorder/bpf/bpf_features.h"
#include "recorder/bpf/bpf_rodata.h"
#include "recorder/core/lane_reader.h"
#include "base/clock.h"
#include "traces/syscalls.h"

namespace fsr {
namespace {

static_assert(sizeof(fsr_counters) == 8 * (2 * FSR_CLASS_MAX + FSR_CNT_EXTRA));
static_assert(kClassCount <= FSR_CLASS_MAX, "FSR_CLASS_MAX too small for the class table");
static_assert(sizeof(fsr_task) == FSR_TASK_SIZE, "fsr_task layout changed: update FSR_TASK_SIZE");

// libbpf's messages: all of them (the verifier's log too), or none.
int libbpf_print_all(enum libbpf_print_level, const char* fmt, va_list ap) { return vfprintf(stderr, fmt, ap); }
int libbpf_print_none(enum libbpf_print_level, const char*, va_list) { return 0; }

Status load_error(int err) {
  if (err == EPERM || err == EACCES)
    return Status::from_errno(
        err, "loading the BPF program was refused: run as root (sudo) or with CAP_BPF and CAP_PERFMON");
  return Status::from_errno(
      err, fmt::format("loading the BPF program failed: {} (rerun with FSREPLAY_BPF_DEBUG=1 for the verifier log)",
                       strerror(err)));
}

}  // namespace

void BpfSession::SkelDeleter::operator()(fsr_bpf* s) const { fsr_bpf__destroy(s); }

BpfSession::MapMem::~MapMem() {
  if (addr) munmap(addr, len);
}

BpfSession::~BpfSession() = default;

// The value area of an mmapable array map: elements of value_size rounded up
// to 8 bytes, from offset 0.
static Status map_array(bpf_map* m, int prot, void** addr, size_t* len) {
  const size_t elem = (static_cast<size_t>(bpf_map__value_size(m)) + 7) & ~size_t{7};
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  *len = (elem * bpf_map__max_entries(m) + page - 1) & ~(page - 1);
  void* p = mmap(nullptr, *len, prot, MAP_SHARED, bpf_map__fd(m), 0);
  if (p == MAP_FAILED)
    return Status::error(fmt::format("mapping the BPF map {} failed: {}", bpf_map__name(m), strerror(errno)));
  *addr = p;
  return Status::ok();
}

fsr_lane_ctl* BpfSession::lane_ctl(uint32_t cpu) const { return static_cast<fsr_lane_ctl*>(ctl_.addr) + cpu; }

// Bytes of records a lane holds between `tail` and `head`: a rewind's
// skipped space [rewind_from, floor) holds none. The four positions are read
// one by one while the writer runs, so a torn set counts as what it can be.
static uint64_t lane_fill(uint64_t head, uint64_t tail, uint64_t floor, uint64_t rewind_from) {
  if (tail < rewind_from && rewind_from <= floor && floor <= head) return (rewind_from - tail) + (head - floor);
  return head - std::min(head, std::max(tail, floor));
}

// The early rewind (fsreplay_record.h). Window: a quarter of the lane, at
// most 1 MiB: a lane that stays that small is as cheap to write as a 1 MiB
// one, where a large lane walked end to end is cold. Cycle: a lane rewinds
// early only if its lap so far took 200 ms, so the room a rewind leaves
// lasts >= 100 ms at that rate: ten of the drain governor's checks, which
// raise a drain that falls behind. A much shorter cycle let a 2-thread
// syscall storm (both CPUs busy, the drain at idle priority) lose records
// to a drain that came too late.
static uint64_t lane_window_for(uint64_t lane_bytes) { return std::min<uint64_t>(lane_bytes / 4, uint64_t{1} << 20); }
static constexpr uint64_t kLaneMinCycleNs = 200'000'000;

// The kernel has filemap_fault's and filemap_map_pages' BTF but refuses
// fentry programs on them (no ftrace, not traceable, or a lockdown or LSM
// that forbids tracing programs): the session again, with the VMA lookup.
Result<std::unique_ptr<BpfSession>> BpfSession::open_without_fentry(const BpfOptions& options, RecordFn fn, void* ctx,
                                                                    const std::string& why) {
  BpfOptions again = options;
  again.without.insert(kFeatFentryFilemap);
  FSR_ASSIGN_OR_RETURN(std::unique_ptr<BpfSession> s, open(again, fn, ctx));
  s->plan_.fentry_refused = why;
  if (!options.without.count(kFeatFentryFilemap)) s->plan_.forced.erase(kFeatFentryFilemap);  // refused, not forced
  if (s->plan_.faults == FaultSource::kVmaLookup)
    s->warnings_ += fmt::format(
        "page faults through the VMA lookup, which costs every user fault microseconds (the kernel refused fentry "
        "on filemap_fault: {}); ",
        why);
  return s;
}

Result<std::unique_ptr<BpfSession>> BpfSession::open(const BpfOptions& options, RecordFn fn, void* ctx) {
  libbpf_set_print(options.libbpf_log ? libbpf_print_all : libbpf_print_none);
  if (options.buffer_mib == 0 || (options.buffer_mib & (options.buffer_mib - 1)) != 0 || options.buffer_mib > 1024)
    return Status::error(fmt::format("--buffer-mib {}: must be a power of two between 1 and 1024", options.buffer_mib),
                         StatusCode::kInvalidInput);
  FSR_ASSIGN_OR_RETURN(const KernelFeatures features, probe_kernel(options.without));
  FSR_ASSIGN_OR_RETURN(const PidNamespace ns, read_pid_namespace());
  FSR_ASSIGN_OR_RETURN(ProgramPlan plan, plan_programs(features, ns, options.page_faults));

  std::unique_ptr<BpfSession> s(new BpfSession());
  s->plan_ = std::move(plan);
  s->fn_ = fn;
  s->ctx_ = ctx;
  int ncpu = libbpf_num_possible_cpus();
  if (ncpu <= 0) return Status::error("cannot read the number of possible CPUs (/sys/devices/system/cpu/possible)");
  s->ncpu_ = static_cast<uint32_t>(ncpu);
  s->read_pos_.assign(s->ncpu_, 0);

  s->skel_.reset(fsr_bpf__open());
  if (!s->skel_) return load_error(errno);
  fsr_bpf* skel = s->skel_.get();
  const ProgramPlan& p = s->plan_;
  fill_rodata(skel, p);
  s->size_lanes(options.buffer_mib);
  select_programs(skel, p);

  if (int err = fsr_bpf__load(skel); err != 0) {
    if (p.faults == FaultSource::kFentry)
      return open_without_fentry(options, fn, ctx, fmt::format("loading them: {}", strerror(-err)));
    return load_error(-err);
  }
  FSR_RETURN_IF_ERROR(s->map_lanes(options.buffer_mib));

  // The initial namespace's pids are the kernel's: the recorder's threads are
  // known from the start (elsewhere on_switch learns their kernel tgid).
  if (p.pidns.initial()) skel->bss->rec_tgid = static_cast<uint32_t>(getpid());

  std::string fentry_refused;
  FSR_RETURN_IF_ERROR(s->attach_programs(fentry_refused));
  if (!fentry_refused.empty()) {
    s.reset();
    return open_without_fentry(options, fn, ctx, fentry_refused);
  }
  return s;
}

// The lanes' size and early-rewind window, in the rodata and the maps' sizes.
void BpfSession::size_lanes(uint32_t buffer_mib) {
  fsr_bpf* skel = skel_.get();
  static_assert(sizeof(fsr_lane_ctl) % 8 == 0, "lane control blocks must pack in the array");
  static_assert(FSR_FRAME_MAX < FSR_SEG_SIZE / 64, "segments too small for the largest frame");
  // --buffer-mib is per CPU, a power of two: that many 1 MiB segments per lane.
  segs_per_lane_ = std::max(1u, buffer_mib >> (FSR_SEG_SHIFT - 20));
  lane_bytes_ = static_cast<uint64_t>(segs_per_lane_) << FSR_SEG_SHIFT;
  skel->rodata->lane_seg_mask = segs_per_lane_ - 1;
  lane_window_ = lane_window_for(lane_bytes_);
  skel->rodata->lane_window = lane_window_;
  skel->rodata->lane_min_cycle_ns = kLaneMinCycleNs;
  bpf_map__set_max_entries(skel->maps.lanes, ncpu_ * segs_per_lane_);
  bpf_map__set_max_entries(skel->maps.lane_ctl, ncpu_);
}

// The loaded lanes and their control blocks, mapped into the recorder.
Status BpfSession::map_lanes(uint32_t buffer_mib) {
  if (Status st = map_array(skel_->maps.lanes, PROT_READ, &lanes_.addr, &lanes_.len); !st)
    return Status::error(st.message() + fmt::format(" ({} MiB per CPU: try a smaller --buffer-mib)", buffer_mib));
  FSR_RETURN_IF_ERROR(map_array(skel_->maps.lane_ctl, PROT_READ | PROT_WRITE, &ctl_.addr, &ctl_.len));
  // A lane's first lap counts from now (bpf_ktime_get_ns is CLOCK_MONOTONIC).
  const uint64_t lap0 = now_ns();
  for (uint32_t cpu = 0; cpu < ncpu_; ++cpu) lane_ctl(cpu)->lap_ns = lap0;
  return Status::ok();
}

// Attaches the loaded programs one by one: the page-fault programs and
// on_switch are optional (a warning each when they fail). When the kernel
// refuses the fentry fault programs, `fentry_refused` says why and nothing
// more is attached: the caller opens the session again without them.
Status BpfSession::attach_programs(std::string& fentry_refused) {
  fsr_bpf* skel = skel_.get();
  struct {
    bpf_program* prog;
    bpf_link** link;
    bool optional;
  } progs[] = {
      {skel->progs.sys_enter, &skel->links.sys_enter, false},
      {skel->progs.sys_exit, &skel->links.sys_exit, false},
      {skel->progs.on_fork, &skel->links.on_fork, false},
      {skel->progs.on_exec, &skel->links.on_exec, false},
      {skel->progs.on_exit, &skel->links.on_exit, false},
      {skel->progs.on_fault, &skel->links.on_fault, true},
      {skel->progs.on_filemap_fault, &skel->links.on_filemap_fault, true},
      {skel->progs.on_filemap_map_pages, &skel->links.on_filemap_map_pages, true},
      {skel->progs.on_fentry_filemap_fault, &skel->links.on_fentry_filemap_fault, true},
      {skel->progs.on_fentry_filemap_map_pages, &skel->links.on_fentry_filemap_map_pages, true},
      {skel->progs.on_fault_vma, &skel->links.on_fault_vma, true},
      {skel->progs.on_switch, &skel->links.on_switch, true},
  };
  for (auto& p : progs) {
    if (p.optional && !bpf_program__autoload(p.prog)) continue;
    *p.link = bpf_program__attach(p.prog);
    if (*p.link) continue;
    int err = errno;
    if (p.prog == skel->progs.on_fentry_filemap_fault || p.prog == skel->progs.on_fentry_filemap_map_pages) {
      fentry_refused = fmt::format("attaching {}: {}", bpf_program__section_name(p.prog), strerror(err));
      return Status::ok();
    }
    if (!p.optional)
      return Status::error(fmt::format("attaching {} failed: {}", bpf_program__section_name(p.prog), strerror(err)));
    warnings_ += p.prog == skel->progs.on_switch
                     ? fmt::format("the CPU time the recorder takes from the workload is not measured ({}: {}); ",
                                   bpf_program__section_name(p.prog), strerror(err))
                     : fmt::format("page faults on file mappings not recorded ({}: {}); ",
                                   bpf_program__section_name(p.prog), strerror(err));
  }
  return Status::ok();
}

Status BpfSession::track(uint32_t tgid) {
  // The value is the address-space generation that keys the page-fault
  // dedupe; bit 31 set keeps user-seeded ones apart from the kernel's.
  uint32_t gen = 0x80000000u | tgid;
  if (bpf_map_update_elem(bpf_map__fd(skel_->maps.tracked), &tgid, &gen, BPF_ANY) != 0)
    return Status::error(fmt::format("adding pid {} to the BPF filter failed: {}", tgid, strerror(errno)));
  // Give the task its state: the syscall programs test only that (no hash
  // lookup). Its other threads, if any, are found through the tracked hash;
  // so is the task itself where its state is in the task hash, whose kernel
  // tids user space does not know.
  if (plan_.task_state != TaskStateStore::kTaskStorage) {
    enable_lazy_tracking();
    return Status::ok();
  }
  UniqueFd pidfd(static_cast<int>(syscall(SYS_pidfd_open, static_cast<pid_t>(tgid), 0)));
  fsr_task seed{};
  seed.pid = seed.tid = tgid;
  int key = pidfd.get();
  if (!pidfd.valid() || bpf_map_update_elem(bpf_map__fd(skel_->maps.tasks), &key, &seed, BPF_ANY) != 0)
    enable_lazy_tracking();
  return Status::ok();
}

bool BpfSession::skip_faults_of(uint32_t dev, uint64_t ino, uint32_t gen, bool skip) {
  struct {
    uint64_t ino;
    uint32_t dev, gen;
  } key{ino, dev, gen};  // (bpf/record_fault.bpf.h fault_skip_key)
  static_assert(sizeof(key) == 16);
  const uint8_t one = 1;
  if (!skip) return bpf_map_delete_elem(bpf_map__fd(skel_->maps.fault_skip), &key) == 0;
  return bpf_map_update_elem(bpf_map__fd(skel_->maps.fault_skip), &key, &one, BPF_ANY) == 0;
}

void BpfSession::time_fault_programs(bool on) {
  __atomic_store_n(&skel_->bss->time_faults, on ? 1u : 0u, __ATOMIC_RELEASE);
}

uint64_t BpfSession::fault_programs_run_ns() const {
  return __atomic_load_n(&skel_->bss->fault_run_ns, __ATOMIC_ACQUIRE);
}

void BpfSession::enable_lazy_tracking() { skel_->bss->lazy_track = 1; }

bool BpfSession::tracked(uint32_t tgid) const {
  uint32_t v = 0;
  return bpf_map_lookup_elem(bpf_map__fd(skel_->maps.tracked), &tgid, &v) == 0;
}

size_t BpfSession::forget_exited() {
  int fd = bpf_map__fd(skel_->maps.tracked);
  std::vector<uint32_t> gone;
  uint32_t key = 0, next = 0;
  const void* prev = nullptr;
  while (bpf_map_get_next_key(fd, prev, &next) == 0) {
    if (kill(static_cast<pid_t>(next), 0) != 0 && errno == ESRCH) gone.push_back(next);
    key = next;
    prev = &key;
  }
  for (uint32_t g : gone) bpf_map_delete_elem(fd, &g);
  return gone.size();
}

size_t BpfSession::tracked_count() const {
  int fd = bpf_map__fd(skel_->maps.tracked);
  uint32_t key = 0, next = 0;
  size_t n = 0;
  const void* prev = nullptr;
  while (bpf_map_get_next_key(fd, prev, &next) == 0) {
    ++n;
    key = next;
    prev = &key;
  }
  return n;
}

Status BpfSession::consume() {
  last_peak_bytes_ = 0;
  for (uint32_t cpu = 0; cpu < ncpu_; ++cpu) {
    fsr_lane_ctl* c = lane_ctl(cpu);
    const uint64_t head = __atomic_load_n(&c->head, __ATOMIC_ACQUIRE);
    const uint64_t from = read_pos_[cpu];
    if (head == from) continue;
    const LaneView lane{
        static_cast<const uint8_t*>(lanes_.addr) + (static_cast<size_t>(cpu) * segs_per_lane_ << FSR_SEG_SHIFT),
        segs_per_lane_ - 1u, __atomic_load_n(&c->rewind_from, __ATOMIC_RELAXED),
        __atomic_load_n(&c->floor, __ATOMIC_RELAXED)};
    last_peak_bytes_ = std::max(last_peak_bytes_, lane_fill(head, c->tail, lane.floor, lane.rewind_from));
    read_pos_[cpu] = read_lane(
        lane, from, head, [&](const void* rec, size_t size, uint64_t next) { fn_(ctx_, cpu, rec, size, next); },
        &lane_damage_);
  }
  return Status::ok();
}

void BpfSession::free_through(uint32_t cpu, uint64_t pos) {
  fsr_lane_ctl* c = lane_ctl(cpu);
  // Only this thread writes tail; it never moves back, nor past what was read.
  if (cpu < ncpu_ && pos > c->tail && pos <= read_pos_[cpu]) __atomic_store_n(&c->tail, pos, __ATOMIC_RELEASE);
}

BpfSession::LaneLoad BpfSession::lane_load_now() const {
  LaneLoad load{0, lane_bytes_};
  for (uint32_t cpu = 0; cpu < ncpu_; ++cpu) {
    fsr_lane_ctl* c = lane_ctl(cpu);
    const uint64_t head = __atomic_load_n(&c->head, __ATOMIC_ACQUIRE);
    const uint64_t tail = __atomic_load_n(&c->tail, __ATOMIC_ACQUIRE);
    const uint64_t floor = __atomic_load_n(&c->floor, __ATOMIC_RELAXED);
    const uint64_t from = __atomic_load_n(&c->rewind_from, __ATOMIC_RELAXED);
    load.fill = std::max(load.fill, lane_fill(head, tail, floor, from));
    const uint64_t used = head - std::min<uint64_t>(head, fsr_space_from(tail, floor, from));
    load.room = std::min(load.room, lane_bytes_ - std::min(lane_bytes_, used));
  }
  return load;
}

KernelCounters BpfSession::counters() const {
  KernelCounters k;
  std::vector<fsr_counters> per(ncpu_);
  uint32_t zero = 0;
  if (bpf_map_lookup_elem(bpf_map__fd(skel_->maps.counters), &zero, per.data()) == 0) {
    for (const auto& c : per) {
      for (int i = 0; i < kClassCount; ++i) {
        k.seen[i] += c.seen[i];
        k.drops[i] += c.drops[i];
      }
      k.string_drops += c.extra[FSR_CNT_STRING_DROPS];
      k.io_uring += c.extra[FSR_CNT_IO_URING];
      k.foreign_children += c.extra[FSR_CNT_FOREIGN];
      k.stolen_ns += c.extra[FSR_CNT_STOLEN_NS];
      k.user_faults += c.extra[FSR_CNT_FAULTS];
      k.fault_skips += c.extra[FSR_CNT_FAULT_SKIPS];
      k.releases += c.extra[FSR_CNT_RELEASES];
      k.release_drops += c.extra[FSR_CNT_RELEASE_DROPS];
    }
  }
  for (uint32_t cpu = 0; cpu < ncpu_; ++cpu) {
    k.lane_nested += lane_ctl(cpu)->nested;
    k.early_rewinds += lane_ctl(cpu)->early_rewinds;
  }
  k.lane_damage = lane_damage_;
  k.stolen_measured = skel_->links.on_switch != nullptr;
  bpf_program* p;
  bpf_object__for_each_program(p, skel_->obj) {  // every program, loaded or not (fd < 0)
    bpf_prog_info info{};
    uint32_t len = sizeof(info);
    int fd = bpf_program__fd(p);
    if (fd >= 0 && bpf_obj_get_info_by_fd(fd, &info, &len) == 0) k.prog_misses += info.recursion_misses;
  }
  return k;
}

}  // namespace fsr
