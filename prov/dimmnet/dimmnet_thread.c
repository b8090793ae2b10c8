/*
 * FI_THREAD_SAFE (dimmnet.h, "Threading"): one recursive lock for the
 * process's node and everything on it, taken by dnf_enter() and released
 * when the entry point's scope ends.
 *
 * The FI_WAIT_FD waiter thread (dimmnet_wait.c) never takes this lock: it
 * runs only while armed, and an entry disarms it after taking the lock, so
 * it never runs beside a holder. With several application threads one may
 * sleep in poll(2) on an armed fd while another calls in and disarms the
 * waiter; the last holder to leave arms it again for the fds still armed,
 * before it lets go of the lock.
 */
#include "dimmnet.h"

atomic_int dnf_thread_safe;

static pthread_mutex_t big_lock;
static pthread_once_t big_lock_once = PTHREAD_ONCE_INIT;
static _Thread_local int depth;      /* this thread's nested entries */

static void big_lock_init(void)
{
    pthread_mutexattr_t a;

    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&big_lock, &a);
    pthread_mutexattr_destroy(&a);
}

/* A domain opened FI_THREAD_SAFE: from now on, for the process's life
 * (a thread already inside holds no lock and takes none on leaving). */
void dnf_thread_safe_on(void)
{
    pthread_once(&big_lock_once, big_lock_init);
    atomic_store_explicit(&dnf_thread_safe, 1, memory_order_release);
}

int dnf_lock_take_slow(void)
{
    int held = 0;

    if (atomic_load_explicit(&dnf_thread_safe, memory_order_acquire)) {
        pthread_mutex_lock(&big_lock);
        depth++;
        held = 1;
    }
    if (atomic_load_explicit(&dnf_waiter_armed, memory_order_acquire)) {
        dnf_wait_disarm();
    }
    return held;
}

void dnf_lock_release_slow(void)
{
    if (--depth == 0) {
        dnf_wait_rearm();
    }
    pthread_mutex_unlock(&big_lock);
}
