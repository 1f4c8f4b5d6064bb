#include "loaded_backend.hpp"

#include <oms/abi_history.hpp>

#include <dlfcn.h>

#include <cstddef>
#include <cstdio>
#include <cstring>

namespace oms::backend_check {
namespace {

void log_line(void*, oms_log_level level, const char* message) {
    if (level >= OMS_LOG_WARN) std::fprintf(stderr, "  (plugin log) %s\n", message);
}

void collect(void* data, oms_report_kind kind, oms_str text) {
    static_cast<std::vector<ReportLine>*>(data)->push_back({kind, std::string(text.data, text.size)});
}

}  // namespace

LoadedBackend::LoadedBackend(const std::string& path, const std::string& wanted_id,
                             const std::vector<std::string>& config) {
    library_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!library_) throw LoadError{std::string("cannot load ") + path + ": " + dlerror()};
    auto entry = reinterpret_cast<oms_plugin_entry_fn>(dlsym(library_, OMS_PLUGIN_ENTRY_SYMBOL));
    if (!entry) throw LoadError{path + " has no " OMS_PLUGIN_ENTRY_SYMBOL " symbol"};
    char buffer[1024] = "";
    oms_error error{buffer, sizeof buffer};
    if (entry(OMS_ABI_MAJOR, OMS_ABI_MINOR, &descriptor_, &error) != OMS_OK || !descriptor_)
        throw LoadError{std::string("the plugin's entry failed: ") + buffer};
    if (descriptor_->struct_size < abi::kDescriptorSize_1_0)
        throw LoadError{"the descriptor is smaller than ABI 1.0's (" + std::to_string(descriptor_->struct_size) + " bytes)"};
    if (descriptor_->abi_major != OMS_ABI_MAJOR || descriptor_->abi_minor > OMS_ABI_MINOR)
        throw LoadError{"the plugin is built for ABI " + std::to_string(descriptor_->abi_major) + "." +
                        std::to_string(descriptor_->abi_minor) + ", this checker knows " +
                        std::to_string(OMS_ABI_MAJOR) + "." + std::to_string(OMS_ABI_MINOR)};
    if (!descriptor_->kind || std::strcmp(descriptor_->kind, OMS_KIND_BACKEND) != 0)
        throw LoadError{std::string("not a backend plugin (kind ") + (descriptor_->kind ? descriptor_->kind : "none") + ")"};
    if (!wanted_id.empty() && wanted_id != (descriptor_->id ? descriptor_->id : ""))
        throw LoadError{"the plugin's id is " + std::string(descriptor_->id ? descriptor_->id : "(none)") +
                        ", not " + wanted_id};
    api_ = static_cast<const oms_backend_api*>(descriptor_->interface);
    if (!api_ || api_->struct_size < abi::kBackendApiSize_1_0 || !api_->spawn || !api_->wait || !api_->signal ||
        !api_->release)
        throw LoadError{"the backend interface is incomplete (spawn, signal, wait and release are required)"};
    declares_rule_kinds_ = OMS_ABI_HAS_FIELD(api_->struct_size, oms_backend_api, rule_kinds);
    rule_kinds_ = declares_rule_kinds_ ? api_->rule_kinds : abi::rule_kinds_of_minor(descriptor_->abi_minor);
    if (rule_kinds_ & ~abi::rule_kinds_of_minor(descriptor_->abi_minor))
        throw LoadError{"the backend declares rule kinds its target ABI 1." + std::to_string(descriptor_->abi_minor) +
                        " does not define"};
    config_.load(config, *descriptor_);
    host_.struct_size = sizeof(oms_host_api);
    host_.abi_major = OMS_ABI_MAJOR;
    host_.abi_minor = OMS_ABI_MINOR;
    host_.log = log_line;
    config_.serve(host_);
    buffer[0] = '\0';
    if (descriptor_->create(&host_, &instance_, &error) != OMS_OK)
        throw LoadError{std::string("the plugin refused to start: ") + buffer};
}

LoadedBackend::~LoadedBackend() {
    if (instance_) descriptor_->destroy(instance_);
    if (library_) dlclose(library_);
}

oms_status LoadedBackend::probe(std::vector<ReportLine>& lines, std::string& reason) const {
    if (!api_->probe) return OMS_OK;
    oms_report_sink sink{sizeof(oms_report_sink), &lines, collect, OMS_REPORT_FOR_PERSON};
    char buffer[1024] = "";
    oms_error error{buffer, sizeof buffer};
    oms_status status = api_->probe(instance_, &sink, &error);
    reason = buffer;
    return status;
}

oms_status LoadedBackend::render(const oms_run_context* context, const oms_policy* policy,
                                 std::vector<ReportLine>& lines, std::string& reason) const {
    if (!api_->render) {
        reason = "the backend has no render";
        return OMS_ERR_UNSUPPORTED;
    }
    oms_report_sink sink{sizeof(oms_report_sink), &lines, collect, OMS_REPORT_FOR_PERSON};
    char buffer[1024] = "";
    oms_error error{buffer, sizeof buffer};
    oms_status status = api_->render(instance_, context, policy, &sink, &error);
    reason = buffer;
    return status;
}

oms_status LoadedBackend::end_task(const oms_run_context* context, std::string& reason) const {
    if (!api_->end_task) return OMS_OK;
    std::vector<ReportLine> ignored;
    oms_report_sink sink{sizeof(oms_report_sink), &ignored, collect, OMS_REPORT_FOR_PERSON};
    char buffer[1024] = "";
    oms_error error{buffer, sizeof buffer};
    oms_status status = api_->end_task(instance_, context, &sink, &error);
    reason = buffer;
    return status;
}

}  // namespace oms::backend_check
