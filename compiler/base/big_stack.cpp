#include "compiler/base/big_stack.h"

#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include <exception>
#include <mutex>
#include <vector>

namespace slope::base {
namespace {

struct Job {
  const std::function<void()>* work;
  std::exception_ptr error;
};

void* RunJob(void* arg) {
  auto* job = static_cast<Job*>(arg);
  try {
    (*job->work)();
  } catch (...) {
    job->error = std::current_exception();
  }
  return nullptr;
}

/// A reserved stack: `bytes` usable above a guard page at `base`.
struct Stack {
  void* base = nullptr;
  size_t bytes = 0;
};

/// Stacks kept between compiles. A new thread's stack from the C library is mapped and
/// unmapped each time (the library caches only small ones), so every compile would fault
/// in its stack pages again; a kept stack keeps the pages it touched. At most
/// kKeptStacks are kept, for that many compiles running at once; others are unmapped.
constexpr size_t kKeptStacks = 4;

// Never destroyed: a compile may run from another static object's destructor.
std::mutex& PoolMutex() {
  static auto* mutex = new std::mutex;
  return *mutex;
}

std::vector<Stack>& Pool() {
  static auto* pool = new std::vector<Stack>;
  return *pool;
}

size_t PageSize() {
  long page = sysconf(_SC_PAGESIZE);
  return page > 0 ? static_cast<size_t>(page) : 4096;
}

/// A kept stack of `bytes`, or a newly reserved one; {nullptr, 0} when none can be made.
Stack TakeStack(size_t bytes) {
  {
    std::lock_guard<std::mutex> lock(PoolMutex());
    auto& pool = Pool();
    for (size_t i = 0; i < pool.size(); ++i) {
      if (pool[i].bytes != bytes) continue;
      Stack found = pool[i];
      pool.erase(pool.begin() + static_cast<std::ptrdiff_t>(i));
      return found;
    }
  }
  size_t page = PageSize();
  void* base = mmap(nullptr, bytes + page, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
  if (base == MAP_FAILED) return {};
  // The lowest page traps an overflow instead of writing below the stack.
  if (mprotect(base, page, PROT_NONE) != 0) {
    munmap(base, bytes + page);
    return {};
  }
  return {base, bytes};
}

void ReturnStack(Stack stack) {
  {
    std::lock_guard<std::mutex> lock(PoolMutex());
    if (Pool().size() < kKeptStacks) {
      Pool().push_back(stack);
      return;
    }
  }
  munmap(stack.base, stack.bytes + PageSize());
}

}  // namespace

void RunWithStack(size_t bytes, const std::function<void()>& work) {
  Job job{&work, nullptr};
  Stack stack = TakeStack(bytes);
  pthread_attr_t attr;
  if (stack.base == nullptr || pthread_attr_init(&attr) != 0) {
    if (stack.base != nullptr) ReturnStack(stack);
    work();
    return;
  }
  pthread_t thread;
  void* usable = static_cast<char*>(stack.base) + PageSize();
  bool started = pthread_attr_setstack(&attr, usable, bytes) == 0 &&
                 pthread_create(&thread, &attr, RunJob, &job) == 0;
  pthread_attr_destroy(&attr);
  if (!started) {
    ReturnStack(stack);
    work();
    return;
  }
  pthread_join(thread, nullptr);
  ReturnStack(stack);
  if (job.error) std::rethrow_exception(job.error);
}

}  // namespace slope::base
