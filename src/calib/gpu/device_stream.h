// One CUDA stream on one GPU, owned: the single way calibration and the worker's GPU steps set up
// and tear down their streams (created on its device, destroyed on that device by its owner, even
// when a measurement throws half-way). Ordered streams synchronize with the legacy default stream
// (the single-GPU measurements, whose cudaMemset and copies must not overtake each other);
// independent ones do not (one per rank under NCCL, which must not wait on another rank's work).
#pragma once

#include <cuda_runtime.h>

namespace schedlab::calib::gpu {

enum class StreamOrder { with_default_stream, independent };

class DeviceStream {
 public:
  // Makes `device` current and creates the stream there; throws EnvironmentError naming `who`.
  DeviceStream(int device, StreamOrder order, const char* who);
  ~DeviceStream();
  DeviceStream(DeviceStream&& other) noexcept;
  DeviceStream& operator=(DeviceStream&& other) noexcept;
  DeviceStream(const DeviceStream&) = delete;
  DeviceStream& operator=(const DeviceStream&) = delete;

  cudaStream_t get() const { return stream_; }
  int device() const { return device_; }
  // Makes the stream's device current and waits for its work; throws like the constructor.
  void synchronize() const;

 private:
  void release() noexcept;

  int device_ = 0;
  cudaStream_t stream_ = nullptr;
  const char* who_ = "";
};

}  // namespace schedlab::calib::gpu
