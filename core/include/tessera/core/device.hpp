// GPU discovery and selection.
#pragma once
#include <cstddef>
#include <string>

namespace tessera::device {

// Number of CUDA devices visible to this process (0 in a host-only build or without a driver).
int count();
bool gpu_available();
// Select the device for a node-local rank: local_rank % count(). Respects CUDA_VISIBLE_DEVICES
// because CUDA numbers only the visible devices. Returns the device id chosen.
int select_for_local_rank(int local_rank);
int current();

struct Info {
  int id = -1;
  std::string name;
  std::string pci_bus_id;
  std::size_t total_bytes = 0;
  std::size_t free_bytes = 0;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  int driver_version = 0;   // e.g. 13000
  int runtime_version = 0;
};
Info info(int id = -1);  // -1: current device
void synchronize();
// Free and total memory of the current device, in bytes.
std::pair<std::size_t, std::size_t> mem_info();

}  // namespace tessera::device
