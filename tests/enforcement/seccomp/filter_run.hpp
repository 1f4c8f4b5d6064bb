// Runs one system call on the real kernel in a forked child under one of the
// generated seccomp filters (or none, for a control) and reports what the
// kernel answered, or the signal that killed the child.
#pragma once
#include <linux/filter.h>

#include <cstddef>
#include <functional>
#include <iterator>

namespace oms::test {

struct Filter {
    const sock_filter* code = nullptr;  // null: no filter (a control run)
    size_t size = 0;
};

template <size_t N>
Filter filter_of(const sock_filter (&table)[N]) {
    return Filter{table, N};
}

struct CallOutcome {
    int killed_by = 0;  // the signal that ended the child, 0 when it returned
    long result = 0;
    int error = 0;  // errno when result is -1
    bool refused_with(int e) const { return killed_by == 0 && result == -1 && error == e; }
    bool worked() const { return killed_by == 0 && result >= 0; }
};

// `call` runs in the child after no_new_privs and the filter; it returns the
// system call's result, errno holding its error.
CallOutcome run_under(Filter filter, const std::function<long()>& call);

// Every argument all ones: no call in the tests does anything with it
// unfiltered (bad pointers, bad descriptors, bad flags), as root too.
long call_with_bad_arguments(long nr);

}  // namespace oms::test
