// EventDecoder: turns kernel records (bpf/fsreplay_record.h) into fsr::Event
// with absolute, interned paths. Keeps what the kernel cannot tell us cheaply:
// per-process fd tables (fork copies, CLONE_FILES/threads share, exec drops
// close-on-exec fds) and cwd (chdir/fchdir; CLONE_FS shares), seeded for the
// first process from /proc. Records must be fed in completion (`end`) order.
// Allocates only for new processes, new fds slots and new distinct strings,
// never per event otherwise.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "recorder/record_view.h"
#include "traces/event.h"
#include "traces/trace_model.h"

namespace fsr {

class EventDecoder {
 public:
  // `intern` is called once per distinct string and returns its id in the
  // trace (TraceWriter::add_string: the decoder keeps strings unique itself).
  using InternFn = std::function<StrId(std::string_view)>;
  EventDecoder(uint64_t mono_start_ns, InternFn intern);

  // Initial cwd and fds of an already running process (from /proc).
  void seed_process(const ProcessState& state);

  // Decodes one record of `size` bytes (bpf/fsreplay_record.h layout) into
  // `out`; false when it yields no event or does not parse.
  bool decode(const void* rec, size_t size, Event& out);

  // The string behind an id this decoder interned ("" when unknown).
  std::string_view str(StrId id) const;

  uint64_t unresolved_paths() const { return unresolved_; }

 private:
  struct FdSlot {
    StrId path = kNoStr;
    uint8_t used = 0;
    uint8_t cloexec = 0;
    uint8_t pipe = 0;
  };
  struct FileTable {
    std::vector<FdSlot> fds;
  };
  struct FsState {
    StrId cwd = kNoStr;
  };
  struct Task {
    std::shared_ptr<FileTable> files;
    std::shared_ptr<FsState> fs;
    StrId pending_exec = kNoStr;
  };

  StrId intern(std::string_view s);
  Task& task(uint32_t pid, uint32_t tid);
  FdSlot* slot(Task& t, int64_t fd);
  void set_fd(Task& t, int64_t fd, StrId path, bool cloexec, bool pipe);
  StrId resolve(Task& t, int64_t dirfd, std::string_view p, bool* unresolved);
  bool decode(const RecordView& rec, Event& out);
  void apply(const RecordView& rec, Task& t, Event& e);

  uint64_t mono_start_;
  InternFn intern_fn_;
  // The interned strings' bytes, packed in blocks (one allocation per 256 KiB,
  // not one per string).
  std::string_view store(std::string_view s);
  static constexpr size_t kArenaBlock = 256 * 1024;
  std::vector<std::unique_ptr<char[]>> arena_;
  char* arena_next_ = nullptr;
  size_t arena_left_ = 0;
  // Interned strings: open addressing over flat slots (one probe line and the
  // string's bytes per lookup; a node-based map took ~3 cache misses per
  // event, a quarter of the drain's CPU). id == kNoStr marks an empty slot.
  struct InternSlot {
    uint64_t hash = 0;
    const char* data = nullptr;
    uint32_t len = 0;
    StrId id = kNoStr;
  };
  std::vector<InternSlot> slots_ = std::vector<InternSlot>(1u << 16);
  size_t interned_ = 0;
  std::vector<std::string_view> by_id_;  // index: StrId
  std::unordered_map<uint32_t, Task> tasks_;
  // (dev, ino) -> the path it was last opened by, for page faults: open
  // addressing over flat slots (a tree map allocated a node for each new
  // inode in the drain loop). path == kNoStr marks an empty slot.
  struct InodePath {
    uint64_t dev = 0, ino = 0;
    StrId path = kNoStr;
  };
  std::vector<InodePath> inode_paths_ = std::vector<InodePath>(1u << 12);
  size_t inode_paths_used_ = 0;
  InodePath& inode_path_slot(uint64_t dev, uint64_t ino);
  void set_inode_path(uint64_t dev, uint64_t ino, StrId path);
  std::string scratch_;
  RecordView view_;
  uint64_t unresolved_ = 0;
  std::array<uint8_t, FSR_MAX_NR> arity_{};
};

}  // namespace fsr
