/* An application's Thread.resume() of a thread a debugger holds (JDK < 20) waits (app_resume.c). */
#ifndef JDWPD_APP_RESUME_H
#define JDWPD_APP_RESUME_H

#include "base.h"

/* After link_start: hold an application's Thread.resume() of a thread a debugger holds (JDK < 20). */
void app_resume_arm(JNIEnv *env);
/* From the Breakpoint callback, first: waits there if this is Thread.resume on such a thread. */
void app_resume_hold(JNIEnv *env, jthread resumer, jmethodID method, jlocation loc);

#endif
