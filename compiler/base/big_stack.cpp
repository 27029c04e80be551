#include "compiler/base/big_stack.h"

#include <pthread.h>

#include <exception>

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

}  // namespace

void RunWithStack(size_t bytes, const std::function<void()>& work) {
  Job job{&work, nullptr};
  pthread_attr_t attr;
  if (pthread_attr_init(&attr) != 0) {
    work();
    return;
  }
  pthread_t thread;
  bool started = pthread_attr_setstacksize(&attr, bytes) == 0 &&
                 pthread_create(&thread, &attr, RunJob, &job) == 0;
  pthread_attr_destroy(&attr);
  if (!started) {
    work();
    return;
  }
  pthread_join(thread, nullptr);
  if (job.error) std::rethrow_exception(job.error);
}

}  // namespace slope::base
