/* Values, locations and ids on the link, and the checked JNI field access the executors share. */
#ifndef JDWPD_VALUES_H
#define JDWPD_VALUES_H

#include "base.h"
#include "buf.h"

uint8_t ref_kind_of(jclass cls);
/* Write a location: ref kind, class id, method id, index.  Remembers the method. */
void ob_location(outbuf *b, JNIEnv *env, jmethodID method, jlocation index);
void ob_null_location(outbuf *b);
uint64_t method_wire_id(jmethodID method);  /* 0 for an obsolete method */
/* A value on the link; tag is the JDWP tag (for objects any object tag: the kind is recomputed). */
void ob_tagged(outbuf *b, JNIEnv *env, jobject obj);
void ob_object_value(outbuf *b, JNIEnv *env, jobject obj, uint8_t null_tag);
/* Value from jvalue by signature tag. */
void ob_jvalue(outbuf *b, JNIEnv *env, uint8_t tag, jvalue v);
/* Read a VALUE into a jvalue; objects resolved to local refs. Returns 0 or a status. */
int ib_value(inbuf *in, JNIEnv *env, uint8_t *tag, jvalue *v);
uint8_t tag_of_signature(const char *sig);
bool tag_is_object(uint8_t tag);

int object_from_id(JNIEnv *env, uint64_t id, jobject *out);  /* id 0 -> LS_INVALID_ID */
int class_from_id(JNIEnv *env, uint64_t id, jclass *out);    /* JVMTI_ERROR_INVALID_CLASS if not a class */
/* The object of an id, or the status `wrong` if it is no instance of `want`. */
int object_of_class(JNIEnv *env, uint64_t id, jclass want, int wrong, jobject *out);
jvalue get_field_value(JNIEnv *env, jobject obj, jclass cls, jfieldID f, uint8_t tag);  /* obj NULL: static */
void set_field_value(JNIEnv *env, jobject obj, jclass cls, jfieldID f, uint8_t tag, jvalue v);
/* Values match a declared tag: primitives exactly, objects by assignability to the declared type. */
bool value_fits(uint8_t declared, uint8_t given);
/* JNI stores objects unchecked: an object must be an instance of the declared type (sig, resolved
 * like the holder class would) before it is written anywhere.  0 or JVMTI TYPE_MISMATCH. */
int object_fits(JNIEnv *env, jobject obj, const char *sig, jclass holder);
int field_value_fits(JNIEnv *env, jclass decl, jfieldID f, uint8_t tag, jvalue v);
/* Sets the fields of n (field id, value) pairs read from in: of obj, or statics of cls when obj is NULL.
 * Every pair is checked before the first write: a request applies completely or not at all. */
int set_fields_checked(JNIEnv *env, inbuf *in, uint32_t n, jclass cls, jobject obj);
/* Writes the values of n (field id, tag asked) pairs read from in: of obj (its statics too, as JDWP
 * allows), or statics of cls when obj is NULL. */
int get_fields_checked(JNIEnv *env, inbuf *in, outbuf *out, uint32_t n, jclass cls, jobject obj);
/* Writes a count, then the ids of n objects (local refs left to the caller). */
void ob_ids(outbuf *out, JNIEnv *env, jint n, const jobject *objs);

#endif
