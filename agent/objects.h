/* The object ID table (JVMTI tag == ID, weak global refs, pins) and the handed-out method and field ids. */
#ifndef JDWPD_OBJECTS_H
#define JDWPD_OBJECTS_H

#include "base.h"

void objects_init(void);
/* ID of an object (0 for NULL); creates an entry. Never fails except OOM (returns 0). */
uint64_t objects_id(JNIEnv *env, jobject obj);
/* Local ref for an id, or NULL with *status set (LS_INVALID_ID / LS_COLLECTED). id 0 -> NULL, status 0. */
jobject objects_ref(JNIEnv *env, uint64_t id, int *status);
uint8_t objects_kind(JNIEnv *env, jobject obj);  /* ObjectKind tag */
int objects_pin(JNIEnv *env, uint64_t id);
int objects_unpin(JNIEnv *env, uint64_t id);
void objects_release(JNIEnv *env, uint64_t id);
void objects_unpin_all(JNIEnv *env);
void objects_pin_all(JNIEnv *env);              /* a suspend-all began: every id strong */
void objects_unpin_all_suspended(JNIEnv *env);  /* the matching resume-all */
void objects_stats(uint64_t *live, uint64_t *pins);
/* Handed-out method and field ids. */
void objects_method_remember(JNIEnv *env, jmethodID m, jclass declaring);
int objects_method_check(uint64_t id, jmethodID *out);  /* 0 or LS_INVALID_METHOD (unknown, or its class unloaded) */
int objects_method_check_unloaded(uint64_t id, jmethodID *out, bool *unloaded);  /* also says which */
void objects_field_remember(JNIEnv *env, jfieldID f, jclass declaring, bool is_static, uint8_t tag);
/* A field id valid for target (an object's class or the class of a static; NULL: any), with its tag;
 * *declaring (if asked) is a local reference to its class, the caller's to delete. */
int objects_field_check(JNIEnv *env, uint64_t id, jclass target, bool want_static, jfieldID *out, uint8_t *tag,
                jclass *declaring);
uint64_t objects_fields_count(void);
uint64_t objects_methods_count(void);

#endif
