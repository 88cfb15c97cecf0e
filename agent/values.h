/* Values, locations and ids on the link, and the checked JNI field access the executors share. */
#ifndef JDWPD_VALUES_H
#define JDWPD_VALUES_H

#include "base.h"
#include "buf.h"

uint8_t values_ref_kind_of(jclass cls);
/* Write a location: ref kind, class id, method id, index.  Remembers the method. */
/* A frame as THREAD_FRAMES writes it: class id, ref kind, method, index (not a LOC, whose kind comes
 * first); JVMTI's error if the method's class cannot be had. */
jvmtiError values_out_frame(outbuf *b, JNIEnv *env, jmethodID method, jlocation index);
void values_out_location(outbuf *b, JNIEnv *env, jmethodID method, jlocation index);
void values_out_null_location(outbuf *b);
uint64_t values_method_wire_id(jmethodID method);  /* 0 for an obsolete method */
/* A value on the link; tag is the JDWP tag (for objects any object tag: the kind is recomputed). */
void values_out_tagged(outbuf *b, JNIEnv *env, jobject obj);
void values_out_object_value(outbuf *b, JNIEnv *env, jobject obj, uint8_t null_tag);
/* Value from jvalue by signature tag. */
void values_out_jvalue(outbuf *b, JNIEnv *env, uint8_t tag, jvalue v);
/* Read a VALUE into a jvalue; objects resolved to local refs. Returns 0 or a status. */
int values_in_value(inbuf *in, JNIEnv *env, uint8_t *tag, jvalue *v);
uint8_t values_tag_of_signature(const char *sig);
bool values_tag_is_object(uint8_t tag);

int values_object_from_id(JNIEnv *env, uint64_t id, jobject *out);  /* id 0 -> LS_INVALID_ID */
int values_class_from_id(JNIEnv *env, uint64_t id, jclass *out);    /* JVMTI_ERROR_INVALID_CLASS if not a class */
/* The object of an id, or the status `wrong` if it is no instance of `want`. */
int values_object_of_class(JNIEnv *env, uint64_t id, jclass want, int wrong, jobject *out);
jvalue values_get_field_value(JNIEnv *env, jobject obj, jclass cls, jfieldID f, uint8_t tag);  /* obj NULL: static */
void values_set_field_value(JNIEnv *env, jobject obj, jclass cls, jfieldID f, uint8_t tag, jvalue v);
/* Values match a declared tag: primitives exactly, objects by assignability to the declared type. */
bool values_value_fits(uint8_t declared, uint8_t given);
/* JNI stores objects unchecked: an object must be an instance of the declared type (sig, resolved
 * like the holder class would) before it is written anywhere.  0 or JVMTI TYPE_MISMATCH. */
int values_object_fits(JNIEnv *env, jobject obj, const char *sig, jclass holder);
int values_field_value_fits(JNIEnv *env, jclass decl, jfieldID f, uint8_t tag, jvalue v);
/* Sets the fields of n (field id, value) pairs read from in: of obj, or statics of cls when obj is NULL.
 * Every pair is checked before the first write: a request applies completely or not at all. */
int values_set_fields_checked(JNIEnv *env, inbuf *in, uint32_t n, jclass cls, jobject obj);
/* Writes the values of n (field id, tag asked) pairs read from in: of obj (its statics too, as JDWP
 * allows), or statics of cls when obj is NULL. */
int values_get_fields_checked(JNIEnv *env, inbuf *in, outbuf *out, uint32_t n, jclass cls, jobject obj);
/* Writes a count, then the ids of n objects (local refs left to the caller). */
void values_out_ids(outbuf *out, JNIEnv *env, jint n, const jobject *objs);

#endif
