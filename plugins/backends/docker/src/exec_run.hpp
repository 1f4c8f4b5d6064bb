// A command exec'd into the task's warm container through the Engine API:
// exec create, exec start on a hijacked connection, the stream pumped until
// the command's output ends, then exec inspect for the exit status.
#pragma once
#include "engine_client.hpp"

#include <oms/sdk.hpp>

#include <atomic>
#include <string>

namespace oms::docker {

class ExecRun : public sdk::Run {
public:
    // `exec_id` was created with `body`'s Tty setting `tty`; starts it now.
    ExecRun(EngineClient client, std::string container, std::string exec_id, std::string user, bool tty,
            oms_stdio stdio);
    ~ExecRun() override;
    void signal(int signal_number) override;
    int wait() override;

private:
    EngineClient client_;
    std::string container_;
    std::string exec_id_;
    std::string user_;
    bool tty_;
    oms_stdio stdio_;
    int socket_ = -1;
    std::string early_;
    std::atomic<bool> waited_{false};
    void deliver(int signal_number);
    void resize_terminal();
};

}  // namespace oms::docker
