/* The agent's base: globals, the agent lock, logging (base.h). */
/* POSIX (clock_gettime) also where the build sets no feature macro. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base.h"

agent_globals G;
static FILE *log_file;

bool agent_log_open(const char *path) {
    log_file = fopen(path, "a");
    return log_file != NULL;
}

void agent_log(const char *fmt, ...) {
    if (log_file == NULL) return;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    va_list ap;
    va_start(ap, fmt);
    fprintf(log_file, "%ld.%06ld ", (long)ts.tv_sec, ts.tv_nsec / 1000);
    vfprintf(log_file, fmt, ap);
    fputc('\n', log_file);
    fflush(log_file);
    va_end(ap);
}

void jvmti_free(void *p) {
    if (p != NULL) (*G.jvmti)->Deallocate(G.jvmti, (unsigned char *)p);
}

int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

bool lock_create(void) {
    return (*G.jvmti)->CreateRawMonitor(G.jvmti, "jdwpd agent", &G.lock) == JVMTI_ERROR_NONE;
}

void lock_enter(void) { (*G.jvmti)->RawMonitorEnter(G.jvmti, G.lock); }
void lock_exit(void) { (*G.jvmti)->RawMonitorExit(G.jvmti, G.lock); }
jvmtiError lock_wait(jlong ms) { return (*G.jvmti)->RawMonitorWait(G.jvmti, G.lock, ms); }
void lock_notify_all(void) { (*G.jvmti)->RawMonitorNotifyAll(G.jvmti, G.lock); }

JNIEnv *agent_env(void) {
    JNIEnv *env = NULL;
    if ((*G.jvm)->GetEnv(G.jvm, (void **)&env, JNI_VERSION_1_8) != JNI_OK) return NULL;
    return env;
}

bool property_is_false(const char *name) {
    char *value = NULL;
    if ((*G.jvmti)->GetSystemProperty(G.jvmti, name, &value) != JVMTI_ERROR_NONE) return false;
    bool off = value != NULL && strcmp(value, "false") == 0;
    jvmti_free(value);
    return off;
}
