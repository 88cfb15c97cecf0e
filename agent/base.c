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

agent_globals base_g;
static FILE *log_file;

bool base_log_open(const char *path) {
    log_file = fopen(path, "a");
    return log_file != NULL;
}

void base_log(const char *fmt, ...) {
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

void base_jvmti_free(void *p) {
    if (p != NULL) (*base_g.jvmti)->Deallocate(base_g.jvmti, (unsigned char *)p);
}

int64_t base_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

bool base_lock_create(void) {
    return (*base_g.jvmti)->CreateRawMonitor(base_g.jvmti, "jdwpd agent", &base_g.lock) == JVMTI_ERROR_NONE;
}

void base_lock_enter(void) { (*base_g.jvmti)->RawMonitorEnter(base_g.jvmti, base_g.lock); }
void base_lock_exit(void) { (*base_g.jvmti)->RawMonitorExit(base_g.jvmti, base_g.lock); }
jvmtiError base_lock_wait(jlong ms) { return (*base_g.jvmti)->RawMonitorWait(base_g.jvmti, base_g.lock, ms); }
void base_lock_notify_all(void) { (*base_g.jvmti)->RawMonitorNotifyAll(base_g.jvmti, base_g.lock); }

JNIEnv *base_jni_env(void) {
    JNIEnv *env = NULL;
    if ((*base_g.jvm)->GetEnv(base_g.jvm, (void **)&env, JNI_VERSION_1_8) != JNI_OK) return NULL;
    return env;
}

bool base_property_is_false(const char *name) {
    char *value = NULL;
    if ((*base_g.jvmti)->GetSystemProperty(base_g.jvmti, name, &value) != JVMTI_ERROR_NONE) return false;
    bool off = value != NULL && strcmp(value, "false") == 0;
    base_jvmti_free(value);
    return off;
}
