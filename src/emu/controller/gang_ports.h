// The rendezvous ports (MASTER_PORT) an emulation gives its gangs. Two emulations on one machine
// must never give the same port to two gangs (one gang's rank 0 could not listen, or a rank
// would reach the other emulation's rank 0), so the ports come in blocks that one emulation
// owns: it claims a block by binding the block's first port (on every address, never
// listening) and holds that socket for as long as it lives. Another emulation's claim of the
// same block then fails, and it claims the next one; the operating system keeps the books, so
// no file is shared and a killed emulation's blocks are free at once. Within its blocks a port
// is lent to one live gang at a time, round-robin (a port just given back is not lent again
// soon, for the late packets of its last gang), skipping any port that something else on the
// machine holds; when every port of the claimed blocks is lent, another block is claimed.
#pragma once

#include <cstdint>
#include <vector>

namespace schedlab::emu {

struct GangPortsConfig {
  std::uint16_t first = 29500;  // the first block's first port (torchrun's default port)
  std::uint16_t block = 1000;   // ports per block; the first holds the claim, the others are lent
  std::uint16_t blocks = 20;    // blocks from `first` on: 29500 to 49499 by default
};

class GangPorts {
 public:
  explicit GangPorts(GangPortsConfig config = {});
  ~GangPorts();  // gives the claimed blocks back
  GangPorts(const GangPorts&) = delete;
  GangPorts& operator=(const GangPorts&) = delete;

  // A port that no live gang of this emulation holds, lent to `holders` (the gang's tasks: each
  // gives it back once). Claims a block first when none is claimed or all their ports are
  // lent. Throws EnvironmentError when no block can be claimed (every block of the range is
  // another emulation's or taken).
  std::uint16_t lend(std::uint32_t holders);
  // One holder of `port` is done with it; the port may be lent again when none is left.
  void give_back(std::uint16_t port);
  // The first ports (the claims) of the blocks this emulation owns, in claim order.
  std::vector<std::uint16_t> claimed() const;

 private:
  struct Block {
    std::uint16_t first = 0;
    int fd = -1;                         // the claim: bound to 0.0.0.0:first, never listening
    std::vector<std::uint32_t> holders;  // by port - first - 1
  };
  bool claim_next();

  GangPortsConfig config_;
  std::vector<Block> blocks_;
  std::uint32_t tried_ = 0;  // blocks of the range tried so far (claimed or found taken)
  std::size_t cursor_ = 0;   // the next port to consider, over all claimed blocks' lendable ports
};

}  // namespace schedlab::emu
