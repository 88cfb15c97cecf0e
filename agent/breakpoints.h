/* Physical breakpoints and field watches: one JVMTI breakpoint per location, one watch per
 * (class, field), reference-counted across requests.  Lock held by the callers. */
#ifndef JDWPD_BREAKPOINTS_H
#define JDWPD_BREAKPOINTS_H

#include "base.h"

int bp_add(jmethodID m, jlocation loc);
void bp_remove(jmethodID m, jlocation loc);
bool bp_present(jmethodID m, jlocation loc);
void bp_clear_all(void);
int bp_count(void);
/* The agent's own breakpoint: its Breakpoint events stay on, outside event_enable's count. */
int bp_add_internal(jmethodID m, jlocation loc);
bool bp_internal_armed(void);

int watch_add(JNIEnv *env, jclass cls, jfieldID f, bool access);
void watch_remove(JNIEnv *env, jclass cls, jfieldID f, bool access);
void watch_clear_all(JNIEnv *env);

#endif
