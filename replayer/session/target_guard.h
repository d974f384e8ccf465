// SPDX-License-Identifier: Apache-2.0
// Whose a replay root is. fsreplay writes only into a directory that is
// empty or that it prepared itself, and never into one another fsreplay is
// using: the marker ROOT/.fsreplay-target says fsreplay made what the
// directory holds, names the trace it was prepared for and the process
// using it, and is held locked (flock) by that process for as long as it
// prepares, replays or resets there. A directory holding anything else is
// refused, naming what the trace would overwrite or remove, unless --force;
// even then only the trace's own paths are touched (prepare.h).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "replayer/plan/tree_spec.h"
#include "base/status.h"

namespace fsr {

inline constexpr const char* kMarkerName = ".fsreplay-target";

struct ClaimRequest {
  std::string what;        // "target" or "scratch" (messages)
  std::string dir;         // its real path
  std::string trace_path;  // named in the marker
  std::string recording;   // the trace's content id (traces/trace_id.h format_trace_id)
  bool force = false;      // take a directory holding other files
};

// A claimed root: the marker open and locked until destroyed.
class RootClaim {
 public:
  RootClaim() = default;
  RootClaim(const RootClaim&) = delete;
  RootClaim& operator=(const RootClaim&) = delete;
  ~RootClaim();
  bool held() const { return fd_ >= 0; }
  // It held nothing but the marker (or nothing at all) when claimed.
  bool was_empty = false;
  // Everything it holds is fsreplay's (it was marked, or empty): an
  // interrupted prepare may clear it. False for a --force'd directory.
  bool owned_all = false;
  // This claim made the marker (it was not there).
  bool made_marker = false;
  // The marker named another recording: what the directory holds is
  // fsreplay's, made for that trace.
  bool other_trace = false;
  std::string other_trace_path;
  // Removes the marker (the directory is left as fsreplay found it: empty).
  void release_and_unmark(int dir_fd);

 private:
  friend Status claim_root(int, const ClaimRequest&, const TreeSpec&, Root, RootClaim&,
                           const std::function<void(const std::string&)>&);
  int fd_ = -1;
};

// Claims directory `dir_fd` for the spec's paths beneath root `which`.
// Refuses a directory another fsreplay holds (naming its pid), and one
// holding entries fsreplay did not make unless `force`, naming the first
// the trace would overwrite or remove; with `force`, `warn` lists them.
Status claim_root(int dir_fd, const ClaimRequest& req, const TreeSpec& spec, Root which, RootClaim& claim,
                  const std::function<void(const std::string&)>& warn);

// Removes everything in `dir_fd` but the marker (a root whose contents are
// all fsreplay's: prepared for another trace, or left by an interrupted
// prepare). Never follows a link.
Status clear_root(int dir_fd, const std::string& dir);

}  // namespace fsr
