/* Physical breakpoints and field watches: one JVMTI breakpoint per location, one watch per
 * (class, field), reference-counted across requests.  Lock held by the callers. */
#ifndef JDWPD_BREAKPOINTS_H
#define JDWPD_BREAKPOINTS_H

#include "base.h"

int breakpoints_add(jmethodID m, jlocation loc);
void breakpoints_remove(jmethodID m, jlocation loc);
bool breakpoints_present(jmethodID m, jlocation loc);
void breakpoints_clear_all(void);
int breakpoints_count(void);
/* The agent's own breakpoint: its Breakpoint events stay on, outside evmode_enable's count. */
int breakpoints_add_internal(jmethodID m, jlocation loc);
bool breakpoints_internal_armed(void);

int breakpoints_watch_add(JNIEnv *env, jclass cls, jfieldID f, bool access);
void breakpoints_watch_remove(JNIEnv *env, jclass cls, jfieldID f, bool access);
void breakpoints_watch_clear_all(JNIEnv *env);

#endif
