// SPDX-License-Identifier: Apache-2.0
#include "replayer/session/target_guard.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "replayer/session/prepare.h"

namespace fsr {
namespace {

constexpr const char* kMarkerHead = "fsreplay replay root: fsreplay made what this directory holds and removes it";
constexpr size_t kNamesShown = 5;

std::string read_marker(int fd) {
  char b[4096];
  const ssize_t n = pread(fd, b, sizeof b - 1, 0);
  return n > 0 ? std::string(b, static_cast<size_t>(n)) : std::string();
}

// The value of line "key value" in a marker's text; "" when absent.
std::string marker_field(const std::string& text, std::string_view key) {
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + at, end - at);
    if (line.size() > key.size() && line.substr(0, key.size()) == key && line[key.size()] == ' ')
      return std::string(line.substr(key.size() + 1));
    at = end + 1;
  }
  return {};
}

Status write_marker(int fd, const ClaimRequest& req) {
  const std::string text = std::string(kMarkerHead) + "\ntrace " + req.trace_path + "\nrecording " + req.recording +
                           "\npid " + std::to_string(getpid()) + "\n";
  if (ftruncate(fd, 0) != 0 || pwrite(fd, text.data(), text.size(), 0) != static_cast<ssize_t>(text.size()))
    return Status::from_errno(errno, req.what + " " + req.dir + ": cannot write its marker " + kMarkerName +
                                         " (check the directory is writable)");
  return Status::ok();
}

// The directory's entries but the marker and an empty lost+found (mkfs's).
std::vector<std::string> foreign_entries(int dir_fd) {
  std::vector<std::string> names;
  int dfd = openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) return names;
  DIR* d = fdopendir(dfd);
  if (!d) {
    close(dfd);
    return names;
  }
  while (dirent* de = readdir(d)) {
    const std::string n = de->d_name;
    if (n == "." || n == ".." || n == kMarkerName) continue;
    if (n == "lost+found") {
      struct stat st;
      if (fstatat(dir_fd, "lost+found", &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode) && st.st_nlink <= 2) {
        int lf = openat(dir_fd, "lost+found", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        bool empty = true;
        if (DIR* l = lf >= 0 ? fdopendir(lf) : nullptr) {
          while (dirent* e = readdir(l))
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) empty = false;
          closedir(l);
        } else if (lf >= 0) {
          close(lf);
        }
        if (empty) continue;
      }
    }
    names.push_back(n);
  }
  closedir(d);
  return names;
}

// Existing paths of the spec under root `which`: what preparing and
// replaying would overwrite (entries of the initial tree) or remove (paths
// the trace creates).
std::vector<std::string> trace_paths_present(int dir_fd, const TreeSpec& spec, Root which) {
  std::vector<std::string> found;
  std::string rel;
  struct stat st;
  for (size_t i = 0; i < spec.entries.size(); ++i) {
    if (spec.root(i) != which) continue;
    spec.rel(i, rel);
    if (rel.empty()) continue;
    if (fstatat(dir_fd, rel.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISDIR(st.st_mode)) found.push_back(rel);
  }
  for (const MappedPath& m : spec.created)
    if (m.root == which && !m.rel.empty() && fstatat(dir_fd, m.rel.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0)
      found.push_back(m.rel + (S_ISDIR(st.st_mode) ? "/ (removed with what it holds)" : " (removed)"));
  return found;
}

std::string first_names(const std::vector<std::string>& names) {
  std::string s;
  for (size_t i = 0; i < names.size() && i < kNamesShown; ++i) s += (i ? ", " : "") + names[i];
  if (names.size() > kNamesShown) s += ", and " + std::to_string(names.size() - kNamesShown) + " more";
  return s;
}

}  // namespace

RootClaim::~RootClaim() {
  if (fd_ >= 0) close(fd_);  // (closing drops the lock)
}

void RootClaim::release_and_unmark(int dir_fd) {
  if (fd_ < 0) return;
  unlinkat(dir_fd, kMarkerName, 0);
  close(fd_);
  fd_ = -1;
}

Status claim_root(int dir_fd, const ClaimRequest& req, const TreeSpec& spec, Root which, RootClaim& claim,
                  const std::function<void(const std::string&)>& warn) {
  for (int attempt = 0; attempt < 3; ++attempt) {
    int fd = openat(dir_fd, kMarkerName, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0) {  // fsreplay's: free, or held by another fsreplay
      if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        const int e = errno;
        const std::string text = read_marker(fd);
        close(fd);
        if (e != EWOULDBLOCK)
          return Status::from_errno(e, req.what + " " + req.dir + ": cannot lock its marker " + kMarkerName);
        const std::string pid = marker_field(text, "pid"), trace = marker_field(text, "trace");
        return Status::error(req.what + " " + req.dir + " is in use by another fsreplay (pid " +
                             (pid.empty() ? "unknown" : pid) + (trace.empty() ? "" : ", trace " + trace) +
                             "): wait for it to finish, or choose another --" + req.what);
      }
      const std::string text = read_marker(fd);
      const std::string rec = marker_field(text, "recording");
      claim.fd_ = fd;
      claim.owned_all = true;
      claim.was_empty = foreign_entries(dir_fd).empty();
      claim.other_trace = !rec.empty() && rec != req.recording && !claim.was_empty;
      claim.other_trace_path = marker_field(text, "trace");
      return write_marker(fd, req);
    }
    if (errno != ENOENT)
      return Status::from_errno(errno, req.what + " " + req.dir + ": cannot open its marker " + kMarkerName +
                                           " (remove it if it is not a file fsreplay made)");
    const std::vector<std::string> foreign = foreign_entries(dir_fd);
    if (!foreign.empty()) {
      const std::vector<std::string> hit = trace_paths_present(dir_fd, spec, which);
      if (!req.force)
        return Status::error(
            req.what + " " + req.dir + " holds " + std::to_string(foreign.size()) + " entries fsreplay did not make (" +
                first_names(foreign) + ")" +
                (hit.empty() ? std::string()
                             : "; the replay would overwrite or remove " + std::to_string(hit.size()) +
                                   " of its files (" + first_names(hit) + ")") +
                ": replay into an empty directory (mkdir one), or pass --force to let fsreplay overwrite them",
            StatusCode::kInvalidInput);
      if (warn) {
        std::string list;
        for (const std::string& h : hit) list += "\n  " + h;
        warn("--force: " + req.what + " " + req.dir + " holds " + std::to_string(foreign.size()) +
             " entries fsreplay did not make; " +
             (hit.empty() ? std::string("the trace names none of them: they are left alone")
                          : "these " + std::to_string(hit.size()) +
                                " are overwritten with filler or removed, the rest left alone:" + list));
      }
    }
    fd = openat(dir_fd, kMarkerName, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
      if (errno == EEXIST) continue;  // another fsreplay made it meanwhile: take its path above
      return unwritable_root(req.what, req.dir, errno, "--" + req.what);
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
      close(fd);
      continue;
    }
    claim.fd_ = fd;
    claim.was_empty = claim.owned_all = foreign.empty();
    claim.made_marker = true;
    return write_marker(fd, req);
  }
  return Status::error(req.what + " " + req.dir + ": another fsreplay keeps claiming it: choose another --" + req.what);
}

Status clear_root(int dir_fd, const std::string& dir) {
  for (const std::string& n : foreign_entries(dir_fd))
    if (int r = remove_tree_at(dir_fd, n.c_str()); r < 0)
      return Status::from_errno(-r, dir + ": cannot remove " + n + " (" + strerror(-r) + ")");
  return Status::ok();
}

}  // namespace fsr
