#include "oms/core/launcher.hpp"

#include "oms/core/error.hpp"
#include "oms/core/policy_guard.hpp"
#include "oms/core/policy_lowering.hpp"
#include "oms/core/signals.hpp"

#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <cstdio>
#include <mutex>
#include <thread>

namespace oms::core {

namespace {

// Waits for signals on its own thread and hands them to the backend (see
// should_forward for the ones it leaves out).
class SignalForwarder {
public:
    SignalForwarder(const oms_backend_api* api, void* instance, void* run)
        : api_(api), instance_(instance), run_(run),
          shares_group_((api->flags & OMS_BACKEND_SHARES_PROCESS_GROUP) != 0), thread_([this] { loop(); }) {}
    ~SignalForwarder() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            done_ = true;
        }
        pthread_kill(thread_.native_handle(), SIGUSR2);
        thread_.join();
    }

private:
    void loop() {
        sigset_t set = handled_signals();
        for (;;) {
            siginfo_t info{};
            int signal_number = sigwaitinfo(&set, &info);
            if (signal_number < 0) continue;
            std::lock_guard<std::mutex> lock(mutex_);
            if (done_) return;
            if (signal_number == SIGUSR2) continue;
            if (!should_forward(info, shares_group_)) continue;
            api_->signal(instance_, run_, signal_number);
        }
    }
    const oms_backend_api* api_;
    void* instance_;
    void* run_;
    bool shares_group_;
    std::mutex mutex_;
    bool done_ = false;
    std::thread thread_;
};

}  // namespace

int launch(const BackendChoice& backend, const RunContext& context, Policy& policy) {
    for (const std::string& line : lower_policy_for_backend(*backend.record, context, policy))
        std::fprintf(stderr, "%s\n", line.c_str());
    refuse_rules_unknown_to_backend(*backend.record, policy);
    const oms_backend_api* api = backend.record->backend();
    void* instance = backend.instance->handle();
    BlockedSignals blocked;
    char message[2048] = {0};
    oms_error error{message, sizeof message};
    void* run = nullptr;
    oms_status status = api->spawn(instance, context.view_for_backend(backend.record->run_flags), policy.view(),
                                   oms_stdio{0, 1, 2}, &run, &error);
    if (status != OMS_OK || !run)
        throw UserError(kExitUnavailable, "backend '" + backend.record->id + "' could not start the command (nothing ran): " +
                                              (message[0] ? message : "no reason given"));
    int32_t exit_code = 0;
    {
        SignalForwarder forwarder(api, instance, run);
        status = api->wait(instance, run, &exit_code, &error);
    }  // the forwarder is gone before the handle is released
    api->release(instance, run);
    if (status != OMS_OK)
        throw UserError(kExitSoftware, "backend '" + backend.record->id + "' lost the command: " + message);
    return exit_code;
}

}  // namespace oms::core
