/* Makes on this machine the environments where a backend's full mode cannot
 * start (refused_syscalls.c says which): plain C, for the conformance kit
 * and the tests. */
#ifndef OMS_REFUSED_SYSCALLS_H
#define OMS_REFUSED_SYSCALLS_H

#ifdef __cplusplus
extern "C" {
#endif

/* Installs on the calling thread, and so on everything it starts from now
 * on, the filters of a comma-separated list of environments ("namespaces",
 * "mounts", "landlock"), each stacked on the one before. 0 when all are in
 * place; -1 with errno EINVAL for an unknown or empty name (a filter named
 * before it may be in place already: the caller must not go on), or the
 * errno of prctl. */
int oms_refuse_syscalls(const char* environments);

#ifdef __cplusplus
}
#endif

#endif
