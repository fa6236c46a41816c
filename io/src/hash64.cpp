// XXH64, implemented from the xxHash specification (doc/xxhash_spec.md, "XXH64 algorithm description").
#include "tessera/io/hash64.hpp"

#include <cstring>

namespace tessera::io {
namespace {
constexpr uint64_t P1 = 0x9E3779B185EBCA87ULL;
constexpr uint64_t P2 = 0xC2B2AE3D27D4EB4FULL;
constexpr uint64_t P3 = 0x165667B19E3779F9ULL;
constexpr uint64_t P4 = 0x85EBCA77C2B2AE63ULL;
constexpr uint64_t P5 = 0x27D4EB2F165667C5ULL;

inline uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
// The spec defines lanes as little-endian; every target of Tessera (x86-64, aarch64) is little-endian.
inline uint64_t read64(const unsigned char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
inline uint32_t read32(const unsigned char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
inline uint64_t round(uint64_t acc, uint64_t lane) {
  acc += lane * P2;
  acc = rotl(acc, 31);
  return acc * P1;
}
inline uint64_t merge(uint64_t acc, uint64_t lane_acc) {
  acc ^= round(0, lane_acc);
  return acc * P1 + P4;
}
}  // namespace

Hash64::Hash64(uint64_t seed) : seed_(seed), acc_{seed + P1 + P2, seed + P2, seed, seed - P1} {}

void Hash64::update(const void* data, std::size_t bytes) {
  auto p = static_cast<const unsigned char*>(data);
  total_ += bytes;
  if (buffered_ + bytes < 32) {
    if (bytes > 0) std::memcpy(buf_.data() + buffered_, p, bytes);
    buffered_ += bytes;
    return;
  }
  if (buffered_ > 0) {  // complete the pending stripe
    std::size_t fill = 32 - buffered_;
    std::memcpy(buf_.data() + buffered_, p, fill);
    for (int l = 0; l < 4; ++l) acc_[l] = round(acc_[l], read64(buf_.data() + 8 * l));
    p += fill;
    bytes -= fill;
    buffered_ = 0;
  }
  while (bytes >= 32) {  // whole stripes of 4 lanes
    for (int l = 0; l < 4; ++l) acc_[l] = round(acc_[l], read64(p + 8 * l));
    p += 32;
    bytes -= 32;
  }
  if (bytes > 0) std::memcpy(buf_.data(), p, bytes);
  buffered_ = bytes;
}

uint64_t Hash64::digest() const {
  uint64_t h;
  if (total_ >= 32) {
    h = rotl(acc_[0], 1) + rotl(acc_[1], 7) + rotl(acc_[2], 12) + rotl(acc_[3], 18);
    for (int l = 0; l < 4; ++l) h = merge(h, acc_[l]);
  } else {
    h = seed_ + P5;
  }
  h += total_;
  const unsigned char* p = buf_.data();
  std::size_t n = buffered_;
  while (n >= 8) {
    h ^= round(0, read64(p));
    h = rotl(h, 27) * P1 + P4;
    p += 8;
    n -= 8;
  }
  if (n >= 4) {
    h ^= static_cast<uint64_t>(read32(p)) * P1;
    h = rotl(h, 23) * P2 + P3;
    p += 4;
    n -= 4;
  }
  while (n > 0) {
    h ^= static_cast<uint64_t>(*p) * P5;
    h = rotl(h, 11) * P1;
    ++p;
    --n;
  }
  // Final avalanche.
  h ^= h >> 33;
  h *= P2;
  h ^= h >> 29;
  h *= P3;
  h ^= h >> 32;
  return h;
}

uint64_t hash64(const void* data, std::size_t bytes, uint64_t seed) {
  Hash64 h(seed);
  h.update(data, bytes);
  return h.digest();
}

std::string to_hex(uint64_t h) {
  static const char* digits = "0123456789abcdef";
  std::string s(16, '0');
  for (int i = 15; i >= 0; --i, h >>= 4) s[i] = digits[h & 0xF];
  return s;
}

}  // namespace tessera::io
