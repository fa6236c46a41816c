// bench_l2_partition: which half of the L2 each multiprocessor and each line of device memory belong to,
// and what a streaming kernel gains when every multiprocessor touches only lines of its own half.
//
// The H100/H200 L2 is two partitions joined by a link; a line has one home partition (where its atomics
// are resolved), and an access from a multiprocessor of the other partition crosses the link. ncu puts
// that link at 85-96 % of its peak in every fast LBM and stencil kernel of this project
// (docs/performance.md, LBM items 15, 22). This program measures, on the card it runs on:
//  1. per multiprocessor, the latency of dependent atomics on 64 lines spread over the buffer: if the
//     partitions matter, the multiprocessors fall into two groups with opposite near/far patterns;
//  2. the home partition of every `--granule` bytes of a `--gib` buffer (a chain of atomics per granule from
//     whichever multiprocessor takes it, classified against that multiprocessor's own near/far levels),
//     twice with different assignments (their agreement is printed), and how the homes are laid out: the
//     largest aligned block that is always of one home, whether every 2 MiB page repeats the first page's
//     pattern (or its complement);
//  3. the bandwidth of an in-place read-modify-write (x = a x + b over fp32, the AA pattern's even step in
//     its simplest form) and of a read-only sum over the buffer, with work units of the map's granularity
//     taken from one queue in address order ("address"), from the queue of the multiprocessor's own home
//     partition first ("near") or of the other first ("far"), against cudaMemcpy in the same process.
//     Every pass is checked: the RMW result against the host's evaluation on sampled elements, the sum
//     against the address-order sum.
// Output: a readable report, and one JSON object per line in --out (card, sizes, commit, figures).
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "partition_map.cuh"

namespace {

using l2map::sm_id;

constexpr int kRound = 4;  // float4 loads in flight per lane before the stores

// Phase 3: work units of `unit_f4` float4s; a warp takes `batch` units at a time from a queue.
// mode 0: queue 0 only (every unit, address order); 1: own group's queue, then the other; 2: the other
// group's queue first, then its own. rmw: x = a x + b in place; otherwise a sum per block into sums[].
template <bool kRmw>
__global__ void __launch_bounds__(256) queue_stream(float4* buf, const unsigned* q0, unsigned n0, const unsigned* q1,
                                                    unsigned n1, unsigned* counters, const unsigned char* group_of_sm,
                                                    int mode, unsigned unit_f4, unsigned batch, float a, float b,
                                                    double* sums) {
  const unsigned lane = threadIdx.x & 31;
  const unsigned g = group_of_sm[sm_id()] & 1;
  const unsigned first = mode == 0 ? 0 : (mode == 1 ? g : 1 - g);
  double acc = 0.0;
  for (int phase = 0; phase < (mode == 0 ? 1 : 2); ++phase) {
    const unsigned which = phase == 0 ? first : 1 - first;
    const unsigned* q = which ? q1 : q0;
    const unsigned n = which ? n1 : n0;
    for (;;) {
      unsigned start = 0;
      if (lane == 0) start = atomicAdd(&counters[which], batch);
      start = __shfl_sync(0xffffffffu, start, 0);
      if (start >= n) break;
      const unsigned cnt = min(batch, n - start);
      const unsigned elems = cnt * unit_f4;
      for (unsigned e0 = 0; e0 < elems; e0 += 32 * kRound) {
        float4 v[kRound];
        size_t at[kRound];
#pragma unroll
        for (int r = 0; r < kRound; ++r) {
          const unsigned e = e0 + r * 32 + lane;
          at[r] = ~size_t{0};
          if (e < elems) {
            at[r] = static_cast<size_t>(q[start + e / unit_f4]) * unit_f4 + e % unit_f4;
            v[r] = buf[at[r]];
          }
        }
#pragma unroll
        for (int r = 0; r < kRound; ++r) {
          if (at[r] == ~size_t{0}) continue;
          if constexpr (kRmw) {
            float4 w = v[r];
            w.x = fmaf(a, w.x, b);
            w.y = fmaf(a, w.y, b);
            w.z = fmaf(a, w.z, b);
            w.w = fmaf(a, w.w, b);
            buf[at[r]] = w;
          } else {
            acc += (double(v[r].x) + v[r].y) + (double(v[r].z) + v[r].w);
          }
        }
      }
    }
  }
  if constexpr (!kRmw) {
    for (int o = 16; o > 0; o >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, o);
    if (lane == 0) atomicAdd(&sums[blockIdx.x], acc);
  }
}

__global__ void fill(float4* buf, size_t n) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n; i += size_t{gridDim.x} * blockDim.x) {
    const float f = static_cast<float>(i % 1000) * 1e-3f;
    buf[i] = make_float4(f, f + 0.25f, f + 0.5f, f + 0.75f);
  }
}

struct Options {
  double gib = 4.0;
  unsigned granule = 128;  // bytes per probed granule
  int chain = 8;
  int reps = 10;
  std::string out;
  std::string commit = "unknown";
  std::string map_out;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "bench_l2_partition: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--gib") o.gib = std::atof(next().c_str());
    else if (a == "--granule") o.granule = static_cast<unsigned>(std::atoi(next().c_str()));
    else if (a == "--chain") o.chain = std::atoi(next().c_str());
    else if (a == "--reps") o.reps = std::atoi(next().c_str());
    else if (a == "--out") o.out = next();
    else if (a == "--commit") o.commit = next();
    else if (a == "--map-out") o.map_out = next();
    else {
      std::fprintf(stderr,
                   "usage: bench_l2_partition [--gib G] [--granule BYTES] [--chain N] [--reps N] [--out FILE.jsonl] "
                   "[--commit HASH] [--map-out FILE]\n");
      return 2;
    }
  }
  if (o.granule < 128 || (o.granule & (o.granule - 1)) || o.gib <= 0 || o.chain < 1 || o.reps < 1) {
    std::fprintf(stderr, "bench_l2_partition: --granule must be a power of two >= 128, --gib > 0, --chain/--reps >= 1\n");
    return 2;
  }
  int dev = 0;
  CK(cudaGetDevice(&dev));
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, dev));
  const int nsm = prop.multiProcessorCount;
  const size_t bytes = static_cast<size_t>(o.gib * (1ull << 30)) & ~((size_t{2} << 20) - 1);
  std::printf("card %s, %d SMs, L2 %d MiB; buffer %.2f GiB, granule %u B, chain %d\n", prop.name, nsm,
              prop.l2CacheSize >> 20, bytes / double(1ull << 30), o.granule, o.chain);
  FILE* js = o.out.empty() ? nullptr : std::fopen(o.out.c_str(), "w");
  if (!o.out.empty() && !js) {
    std::fprintf(stderr, "bench_l2_partition: cannot write %s\n", o.out.c_str());
    return 1;
  }

  unsigned* buf = nullptr;
  CK(cudaMalloc(&buf, bytes));
  CK(cudaMemset(buf, 0, bytes));

  // ---- phase 1: the multiprocessors' groups
  const l2map::SmGroups G = l2map::probe_sms(buf, bytes, o.chain);
  std::printf("phase 1: %d distinct SM ids among %d blocks\n", G.distinct, nsm);
  std::printf("phase 1: groups of %d and %d SMs; smallest |correlation| with the first SM's pattern %.3f; "
              "per-atomic latency near %.0f, far %.0f cycles (means over SMs)\n",
              G.sizes[0], G.sizes[1], G.min_abs_corr, G.near_cycles, G.far_cycles);
  std::printf("phase 1: group 1 SMs:");
  for (int s = 0; s < l2map::kMaxSm; ++s)
    if (G.group[s] == 1) std::printf(" %d", s);
  std::printf("\n");
  const unsigned char* d_group = G.d_group;
  const int ngroup[2] = {G.sizes[0], G.sizes[1]};

  // ---- phase 2: the home of every granule (three passes, majority vote)
  const unsigned long long ngran = bytes / o.granule;
  const l2map::LineMap M = l2map::map_lines(buf, bytes, o.granule, o.chain, G, 3);
  const double agreement = M.agreement;
  unsigned long long count[3] = {0, 0, 0};
  for (unsigned char x : M.home) ++count[x];
  std::printf("phase 2: %llu granules mapped, %.1f ms per pass; all three passes agree on %.5f; homes: group 0 %.4f, "
              "group 1 %.4f\n", ngran, M.ms_per_pass, agreement, double(count[0]) / ngran, double(count[1]) / ngran);
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  // granularity: the largest aligned block (power of two) whose granules mostly share a home
  const std::vector<unsigned char>& h = M.home;
  int gran_log2 = 0;
  std::printf("phase 2: share of aligned blocks of one home:");
  for (int u = 1; u <= 16; ++u) {
    const unsigned long long blk = 1ull << u;
    unsigned long long same = 0, total = 0;
    for (unsigned long long k = 0; k + blk <= ngran; k += blk) {
      bool one = true;
      for (unsigned long long j = 1; j < blk && one; ++j) one = h[k + j] == h[k];
      same += one;
      ++total;
    }
    const double f = double(same) / total;
    std::printf(" %llu B %.3f;", blk * o.granule, f);
    // most blocks of one home (the map's noise flips a line now and then: 0.7, not 1)
    if (f > 0.7 && gran_log2 == u - 1) gran_log2 = u;
  }
  const unsigned long long run_bytes = (1ull << gran_log2) * o.granule;
  std::printf("\nphase 2: homes come in aligned runs of %llu B\n", run_bytes);
  // page pattern: does every 2 MiB page repeat page 0's homes, or their complement (within 3 %: the map's noise)?
  const unsigned long long gpp = (2ull << 20) / o.granule;
  unsigned long long pages = ngran / gpp, same_pat = 0, compl_pat = 0;
  for (unsigned long long p = 0; p < pages; ++p) {
    unsigned long long diff = 0;
    for (unsigned long long j = 0; j < gpp; ++j) diff += h[p * gpp + j] != h[j];
    same_pat += diff < gpp * 3 / 100;
    compl_pat += diff > gpp * 97 / 100;
  }
  std::printf("phase 2: of %llu pages of 2 MiB, %llu repeat page 0's homes and %llu their complement (within 3 %%)\n",
              pages, same_pat, compl_pat);
  // XOR structure in the address bits: share of granules a (first 64 MiB) with home(a) != home(a ^ 2^b)
  std::printf("phase 2: share of a with home(a) != home(a ^ 2^b), bit b:");
  const unsigned long long span = std::min<unsigned long long>(ngran, (64ull << 20) / o.granule);
  const int lg = static_cast<int>(std::log2(o.granule));
  for (int bit = 0; (1ull << bit) < span; ++bit) {
    unsigned long long ones = 0;
    for (unsigned long long j = 0; j < span; ++j) ones += h[j] != h[j ^ (1ull << bit)];
    std::printf(" %d:%.3f", bit + lg, double(ones) / span);
  }
  std::printf("\n");
  if (!o.map_out.empty()) {  // the homes of the first 64 MiB, one byte per granule, for offline analysis
    FILE* f = std::fopen(o.map_out.c_str(), "wb");
    if (!f || std::fwrite(h.data(), 1, span, f) != span) {
      std::fprintf(stderr, "bench_l2_partition: cannot write %s\n", o.map_out.c_str());
      return 1;
    }
    std::fclose(f);
  }

  // ---- phase 3: bandwidth with work units of the runs' size (from one granule up to 4 KiB)
  const unsigned unit_bytes = static_cast<unsigned>(std::clamp<unsigned long long>(run_bytes, o.granule, 4096));
  const unsigned unit_f4 = unit_bytes / 16;
  const unsigned long long nunits = bytes / unit_bytes;
  const unsigned gpu_per_unit = unit_bytes / o.granule;
  std::vector<unsigned> all(nunits), own[2];
  unsigned long long mixed = 0;
  for (unsigned long long u = 0; u < nunits; ++u) {
    all[u] = static_cast<unsigned>(u);
    int c[3] = {0, 0, 0};
    for (unsigned j = 0; j < gpu_per_unit; ++j) ++c[h[u * gpu_per_unit + j]];
    const int hm = c[1] > c[0] ? 1 : 0;
    mixed += (c[0] && c[1]) || c[2];
    own[hm].push_back(static_cast<unsigned>(u));
  }
  std::printf("phase 3: units of %u B: %zu of home 0, %zu of home 1, %llu mixed\n", unit_bytes, own[0].size(),
              own[1].size(), mixed);
  unsigned *d_all = nullptr, *d_q[2] = {nullptr, nullptr}, *d_counters = nullptr;
  double* d_sums = nullptr;
  CK(cudaMalloc(&d_all, nunits * sizeof(unsigned)));
  for (int g = 0; g < 2; ++g) CK(cudaMalloc(&d_q[g], std::max<size_t>(own[g].size(), 1) * sizeof(unsigned)));
  CK(cudaMalloc(&d_counters, 2 * sizeof(unsigned)));
  CK(cudaMemcpy(d_all, all.data(), nunits * sizeof(unsigned), cudaMemcpyHostToDevice));
  for (int g = 0; g < 2; ++g)
    CK(cudaMemcpy(d_q[g], own[g].data(), own[g].size() * sizeof(unsigned), cudaMemcpyHostToDevice));
  float4* f4 = reinterpret_cast<float4*>(buf);
  const size_t n4 = bytes / 16;
  int bps = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&bps, queue_stream<true>, 256, 0));
  const int grid = nsm * bps;
  CK(cudaMalloc(&d_sums, grid * sizeof(double)));
  const unsigned batch = std::max(1u, 4096u / unit_bytes);

  auto run = [&](bool rmw, int mode, float a, float b) {
    CK(cudaMemsetAsync(d_counters, 0, 2 * sizeof(unsigned)));
    if (!rmw) CK(cudaMemsetAsync(d_sums, 0, grid * sizeof(double)));
    const unsigned* q0 = mode == 0 ? d_all : d_q[0];
    const unsigned n0 = mode == 0 ? static_cast<unsigned>(nunits) : static_cast<unsigned>(own[0].size());
    if (rmw)
      queue_stream<true><<<grid, 256>>>(f4, q0, n0, d_q[1], static_cast<unsigned>(own[1].size()), d_counters, d_group,
                                        mode, unit_f4, batch, a, b, d_sums);
    else
      queue_stream<false><<<grid, 256>>>(f4, q0, n0, d_q[1], static_cast<unsigned>(own[1].size()), d_counters,
                                         d_group, mode, unit_f4, batch, a, b, d_sums);
    CK(cudaGetLastError());
  };
  auto timed = [&](auto&& launch, double moved) {
    for (int w = 0; w < 2; ++w) launch();
    std::vector<double> tb;
    for (int r = 0; r < o.reps; ++r) {
      CK(cudaEventRecord(e0));
      launch();
      CK(cudaEventRecord(e1));
      CK(cudaEventSynchronize(e1));
      float ms = 0;
      CK(cudaEventElapsedTime(&ms, e0, e1));
      tb.push_back(moved / (ms * 1e-3) / 1e12);
    }
    return median(tb);
  };

  // the copy ceiling: cudaMemcpy of half the buffer into a second buffer (read + write counted)
  void* other = nullptr;
  CK(cudaMalloc(&other, bytes / 2));
  const double copy_tbs = timed([&] { CK(cudaMemcpyAsync(other, buf, bytes / 2, cudaMemcpyDeviceToDevice)); }, double(bytes));
  CK(cudaFree(other));

  // correctness: fill, one RMW pass per mode must give a x + b everywhere (sampled), sums must agree
  const char* mode_name[3] = {"address", "near", "far"};
  std::vector<float4> sample(4096);
  bool ok = true;
  for (int mode = 0; mode < 3; ++mode) {
    fill<<<nsm * 8, 256>>>(f4, n4);
    run(true, mode, 0.5f, 1.0f);
    CK(cudaDeviceSynchronize());
    for (int k = 0; k < 4096; ++k) {
      const size_t i = (static_cast<size_t>(k) * 2654435761ull) % n4;
      CK(cudaMemcpy(&sample[k], f4 + i, sizeof(float4), cudaMemcpyDeviceToHost));
      const float f = static_cast<float>(i % 1000) * 1e-3f;
      const float want[4] = {std::fmaf(0.5f, f, 1.f), std::fmaf(0.5f, f + 0.25f, 1.f), std::fmaf(0.5f, f + 0.5f, 1.f),
                             std::fmaf(0.5f, f + 0.75f, 1.f)};
      const float got[4] = {sample[k].x, sample[k].y, sample[k].z, sample[k].w};
      for (int c = 0; c < 4; ++c)
        if (got[c] != want[c]) {
          if (ok) std::fprintf(stderr, "bench_l2_partition: %s RMW wrong at float4 %zu: %g != %g\n", mode_name[mode], i, got[c], want[c]);
          ok = false;
        }
    }
  }
  fill<<<nsm * 8, 256>>>(f4, n4);
  double sum_ref = 0;
  for (int mode = 0; mode < 3; ++mode) {
    run(false, mode, 1.f, 0.f);
    std::vector<double> sums(grid);
    CK(cudaMemcpy(sums.data(), d_sums, grid * sizeof(double), cudaMemcpyDeviceToHost));
    const double s = std::accumulate(sums.begin(), sums.end(), 0.0);
    if (mode == 0) sum_ref = s;
    if (std::fabs(s - sum_ref) > 1e-9 * std::fabs(sum_ref)) {
      std::fprintf(stderr, "bench_l2_partition: %s sum %.9g != address-order sum %.9g\n", mode_name[mode], s, sum_ref);
      ok = false;
    }
  }
  if (!ok) return 1;
  std::printf("phase 3: RMW (4096 sampled float4 per mode) and sums verified\n");

  // timing: RMW moves the buffer twice (read + write), the sum once; modes interleaved, twice over
  double tb[2][3] = {{0, 0, 0}, {0, 0, 0}};
  for (int round = 0; round < 2; ++round)
    for (int rmw = 1; rmw >= 0; --rmw)
      for (int mode = 0; mode < 3; ++mode) {
        const double t = timed([&] { run(rmw, mode, 1.0f, 0.0f); }, double(bytes) * (rmw ? 2 : 1));
        tb[rmw][mode] = std::max(tb[rmw][mode], t);
      }
  std::printf("phase 3: cudaMemcpy %.3f TB/s (%.2f GiB moved per call)\n", copy_tbs, bytes / double(1ull << 30));
  for (int rmw = 1; rmw >= 0; --rmw)
    std::printf("phase 3: %-4s TB/s: address %.3f (%.3f of copy)  near %.3f (%.3f)  far %.3f (%.3f)\n",
                rmw ? "rmw" : "read", tb[rmw][0], tb[rmw][0] / copy_tbs, tb[rmw][1], tb[rmw][1] / copy_tbs, tb[rmw][2],
                tb[rmw][2] / copy_tbs);
  if (js) {
    std::fprintf(js,
                 "{\"benchmark\":\"l2_partition\",\"card\":\"%s\",\"commit\":\"%s\",\"sms\":%d,\"buffer_bytes\":%zu,"
                 "\"granule_bytes\":%u,\"chain\":%d,\"group_sizes\":[%d,%d],\"min_abs_corr\":%.4f,"
                 "\"near_cycles\":%.1f,\"far_cycles\":%.1f,\"map_agreement\":%.6f,\"home_fractions\":[%.5f,%.5f,%.5f],"
                 "\"run_bytes\":%llu,\"pages\":%llu,\"pages_same\":%llu,\"pages_complement\":%llu,\"unit_bytes\":%u,"
                 "\"units_mixed\":%llu,\"copy_TBps\":%.4f,\"rmw_TBps\":{\"address\":%.4f,\"near\":%.4f,\"far\":%.4f},"
                 "\"read_TBps\":{\"address\":%.4f,\"near\":%.4f,\"far\":%.4f},\"blocks_per_sm\":%d,\"reps\":%d}\n",
                 prop.name, o.commit.c_str(), nsm, bytes, o.granule, o.chain, ngroup[0], ngroup[1], G.min_abs_corr,
                 G.near_cycles, G.far_cycles, agreement, double(count[0]) / ngran, double(count[1]) / ngran,
                 double(count[2]) / ngran, run_bytes, pages, same_pat, compl_pat, unit_bytes, mixed, copy_tbs,
                 tb[1][0], tb[1][1], tb[1][2], tb[0][0], tb[0][1], tb[0][2], bps, o.reps);
    std::fclose(js);
  }
  return 0;
}
