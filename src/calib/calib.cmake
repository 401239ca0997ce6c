# GPU measurements for `schedlab calibrate` (src/calib/gpu/), built only when SCHEDLAB_CUDA is ON
# and the CUDA toolkit is found. Otherwise nothing happens here and src/calib/gpu_measure.cpp
# (in schedlab_core) answers `schedlab calibrate` with a one-line EnvironmentError.
# NCCL and cuBLAS are opened at run time (dlopen); the CUDA runtime is linked statically, so the
# schedlab binary needs no CUDA library to start.

if(NOT SCHEDLAB_CUDA)
  message(STATUS "schedlab: SCHEDLAB_CUDA is OFF; GPU calibration not built")
  return()
endif()

if(NOT DEFINED CUDAToolkit_ROOT AND NOT DEFINED ENV{CUDAToolkit_ROOT} AND EXISTS /usr/local/cuda)
  set(CUDAToolkit_ROOT /usr/local/cuda)
endif()
if(NOT CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX})
  if(DEFINED CUDAToolkit_ROOT AND EXISTS "${CUDAToolkit_ROOT}/bin/nvcc")
    set(CMAKE_CUDA_COMPILER "${CUDAToolkit_ROOT}/bin/nvcc")
  endif()
endif()

find_package(CUDAToolkit QUIET)
if(NOT CUDAToolkit_FOUND OR NOT TARGET CUDA::cudart_static)
  message(STATUS "schedlab: CUDA toolkit not found; GPU calibration not built")
  return()
endif()
include(CheckLanguage)
check_language(CUDA)
if(NOT CMAKE_CUDA_COMPILER)
  message(STATUS "schedlab: no working CUDA compiler; GPU calibration not built")
  return()
endif()

if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
  # A100 (sm_80) and H100/H200 (sm_90) machine code, plus sm_90 PTX for newer GPUs.
  set(CMAKE_CUDA_ARCHITECTURES 80-real 90)
endif()
enable_language(CUDA)
message(STATUS "schedlab: GPU calibration built with CUDA ${CUDAToolkit_VERSION} (${CMAKE_CUDA_COMPILER})")

file(GLOB SCHEDLAB_CALIB_GPU_SOURCES CONFIGURE_DEPENDS
  ${CMAKE_CURRENT_LIST_DIR}/gpu/*.cpp ${CMAKE_CURRENT_LIST_DIR}/gpu/*.cu)
add_library(schedlab_calib_gpu STATIC ${SCHEDLAB_CALIB_GPU_SOURCES})
set_target_properties(schedlab_calib_gpu PROPERTIES
  CUDA_STANDARD 17 CUDA_STANDARD_REQUIRED ON POSITION_INDEPENDENT_CODE ON)
target_include_directories(schedlab_calib_gpu PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_compile_options(schedlab_calib_gpu PRIVATE $<$<COMPILE_LANGUAGE:CXX>:${SCHEDLAB_WARNINGS}>)
# Header-only fmt and the static CUDA runtime; nothing from schedlab_core (no link cycle).
target_link_libraries(schedlab_calib_gpu PRIVATE ${SCHEDLAB_FMT} PUBLIC CUDA::cudart_static ${CMAKE_DL_LIBS})

target_compile_definitions(schedlab_core PUBLIC SCHEDLAB_HAVE_CUDA=1)
target_link_libraries(schedlab_core PUBLIC schedlab_calib_gpu)
