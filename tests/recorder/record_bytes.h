// Test helper: the bytes of one kernel record in the ring layout that
// bpf/fsreplay_record.bpf.c writes (header, arguments of arg_mask, inode
// facts when FSR_RF_HAS_INODE, path0, path1 to the end), written out here by
// hand rather than through the parser under test.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#include "bpf/fsreplay_record.h"

namespace fsr::test {

// `hdr.len0` is set from path0 (NUL included; none when empty). path1 is
// copied as given (exec argv: NUL-separated, NUL-terminated).
inline std::vector<char> record_bytes(fsr_rec hdr, const uint64_t (&args)[6], const fsr_inode& inode,
                                      std::string_view path0 = {}, std::string_view path1 = {}) {
  hdr.len0 = path0.empty() ? 0 : static_cast<uint16_t>(path0.size() + 1);
  std::vector<char> out(sizeof(hdr));
  std::memcpy(out.data(), &hdr, sizeof(hdr));
  auto put = [&](const void* p, size_t n) {
    const char* c = static_cast<const char*>(p);
    out.insert(out.end(), c, c + n);
  };
  for (int i = 0; i < 6; ++i)
    if (hdr.arg_mask & (1u << i)) put(&args[i], 8);
  if (hdr.flags & FSR_RF_HAS_INODE) put(&inode, sizeof(inode));
  if (!path0.empty()) {
    put(path0.data(), path0.size());
    out.push_back('\0');
  }
  put(path1.data(), path1.size());
  return out;
}

}  // namespace fsr::test
