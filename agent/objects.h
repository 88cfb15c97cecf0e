/* The object ID table (JVMTI tag == ID, weak global refs, pins) and the handed-out method and field ids. */
#ifndef JDWPD_OBJECTS_H
#define JDWPD_OBJECTS_H

#include "base.h"

void objects_init(void);
/* ID of an object (0 for NULL); creates an entry. Never fails except OOM (returns 0). */
uint64_t obj_id(JNIEnv *env, jobject obj);
/* Local ref for an id, or NULL with *status set (LS_INVALID_ID / LS_COLLECTED). id 0 -> NULL, status 0. */
jobject obj_ref(JNIEnv *env, uint64_t id, int *status);
uint8_t obj_kind(JNIEnv *env, jobject obj);  /* ObjectKind tag */
int obj_pin(JNIEnv *env, uint64_t id);
int obj_unpin(JNIEnv *env, uint64_t id);
void obj_release(JNIEnv *env, uint64_t id);
void obj_unpin_all(JNIEnv *env);
void obj_pin_all(JNIEnv *env);              /* a suspend-all began: every id strong */
void obj_unpin_all_suspended(JNIEnv *env);  /* the matching resume-all */
void obj_stats(uint64_t *live, uint64_t *pins);
/* Handed-out method and field ids. */
void method_remember(JNIEnv *env, jmethodID m, jclass declaring);
int method_check(uint64_t id, jmethodID *out);  /* 0 or LS_INVALID_METHOD (unknown, or its class unloaded) */
int method_check_unloaded(uint64_t id, jmethodID *out, bool *unloaded);  /* also says which */
void field_remember(JNIEnv *env, jfieldID f, jclass declaring, bool is_static, uint8_t tag);
/* A field id valid for target (an object's class or the class of a static; NULL: any), with its tag;
 * *declaring (if asked) is a local reference to its class, the caller's to delete. */
int field_check(JNIEnv *env, uint64_t id, jclass target, bool want_static, jfieldID *out, uint8_t *tag,
                jclass *declaring);
uint64_t fields_count(void);
uint64_t methods_count(void);

#endif
