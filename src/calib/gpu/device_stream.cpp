#include "calib/gpu/device_stream.h"

#include <utility>

#include "calib/gpu/libraries.h"

namespace schedlab::calib::gpu {

DeviceStream::DeviceStream(int device, StreamOrder order, const char* who) : device_(device), who_(who) {
  cuda_check(cudaSetDevice(device), "cudaSetDevice", who);
  const unsigned flags = order == StreamOrder::independent ? cudaStreamNonBlocking : cudaStreamDefault;
  cuda_check(cudaStreamCreateWithFlags(&stream_, flags), "cudaStreamCreate", who);
}

DeviceStream::~DeviceStream() { release(); }

DeviceStream::DeviceStream(DeviceStream&& other) noexcept
    : device_(other.device_), stream_(std::exchange(other.stream_, nullptr)), who_(other.who_) {}

DeviceStream& DeviceStream::operator=(DeviceStream&& other) noexcept {
  if (this != &other) {
    release();
    device_ = other.device_;
    stream_ = std::exchange(other.stream_, nullptr);
    who_ = other.who_;
  }
  return *this;
}

void DeviceStream::synchronize() const {
  cuda_check(cudaSetDevice(device_), "cudaSetDevice", who_);
  cuda_check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize", who_);
}

void DeviceStream::release() noexcept {
  if (!stream_) return;
  // A stream is destroyed on its own device; errors here have nowhere to go (teardown).
  cudaSetDevice(device_);
  cudaStreamDestroy(stream_);
  stream_ = nullptr;
}

}  // namespace schedlab::calib::gpu
