// The allocator's settings for a process that runs optimizer cycles.
#pragma once

#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace opt {

/** Keep freed memory for the next cycle. A cycle allocates tens of MB of arrays sized by the
 *  mempool and frees them at its end; with glibc's defaults the larger ones are fresh mmaps (or the
 *  heap top is trimmed), so every cycle paid a page fault per 4 KiB touched again (~23 % of a
 *  150k-tx cycle under perf). Every array now comes from the heap: the threshold is raised to
 *  glibc's ceiling (32 MiB) and mmap is switched off for the larger ones, which only a mempool of
 *  several hundred thousand transactions has (a 1M cycle faulted 18k-80k pages, 58-212 ms of system
 *  time, each cycle). Up to 512 MiB of free heap is kept instead of being returned to the system.
 *  Process-wide; other allocators (musl, macOS) keep their own policy. */
inline void KeepFreedMemoryForNextCycle() noexcept
{
#ifdef __GLIBC__
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 512 << 20);
    mallopt(M_MMAP_MAX, 0);
#endif
}

}  // namespace opt
