from jdwpd.daemon.model.threads import ThreadTable

A, B = "session-a", "session-b"


def test_thread_suspends_are_undone_per_session():
    t = ThreadTable()
    t.suspended(A, 1)
    t.suspended(A, 1)
    t.suspended(B, 1)
    t.suspended(B, 2)
    plan = t.take_undo_plan(A)
    assert plan.resume_all == 0 and plan.resume_threads == ((1, 2),)
    assert t.claims(B, 1) == 1 and t.claims(A, 1) == 0
    assert t.take_undo_plan(B).resume_threads == ((1, 1), (2, 1))


def test_resume_all_takes_back_a_whole_vm_suspend_first():
    t = ThreadTable()
    t.suspended(A, 1)
    t.suspended_all(A)
    t.get(2)
    t.resumed_all(A)
    assert t.claims(A, 1) == 1 and t.claims(A, 2) == 0
    plan = t.take_undo_plan(A)
    assert plan.resume_all == 0 and plan.resume_threads == ((1, 1),)


def test_resume_all_without_whole_vm_suspend_lowers_every_thread():
    t = ThreadTable()
    t.suspended(A, 1)
    t.suspended(A, 2)
    t.suspended(A, 2)
    t.resumed_all(A)
    assert (t.claims(A, 1), t.claims(A, 2)) == (0, 1)


def test_resuming_one_thread_out_of_a_vm_suspend_keeps_the_others():
    t = ThreadTable()
    t.get(1), t.get(2)
    t.suspended_all(A)
    t.resumed(A, 1)
    assert t.claims(A, 1) == 0 and t.claims(A, 2) == 1
    assert t.claims(A, 99) == 1  # a thread we never saw is in the VM-wide suspension too
    plan = t.take_undo_plan(A)
    assert plan.resume_all == 1 and plan.resume_threads == ()


def test_extra_resumes_never_make_claims_negative():
    t = ThreadTable()
    t.resumed(A, 1)
    t.resumed_all(A)
    assert t.claims(A, 1) == 0
    assert t.take_undo_plan(A).empty


def test_frame_generation_is_forgotten_when_the_thread_runs():
    t = ThreadTable()
    assert t.generation(5) is None
    t.frames_handed_out(5, 3)
    t.suspended(A, 5)
    assert t.generation(5) == 3
    t.resumed(A, 5, now_running=False)
    assert t.generation(5) == 3
    t.resumed(A, 5)
    assert t.generation(5) is None
    t.learned_generation(5, 4)
    assert t.generation(5) == 4
    t.resumed_all(B)
    assert t.generation(5) is None


def test_forgotten_thread_is_not_resumed_on_leave():
    t = ThreadTable()
    t.suspended(A, 3)
    t.forget(3)
    assert t.take_undo_plan(A).empty


def test_vm_resume_keeps_frames_of_threads_still_suspended():
    t = ThreadTable()
    t.frames_handed_out(1, 7)
    t.learned_generation(2, 7)
    assert t.with_frames_out() == [1]
    t.resumed_all(A, still_suspended=frozenset({1}))
    assert t.generation(1) == 7 and t.generation(2) is None
    t.resumed_all(A)
    assert t.generation(1) is None and t.with_frames_out() == []


def test_thread_status_as_the_reference_maps_jvmti_states():
    from jdwpd.daemon.facade.threads import jdwp_thread_status

    alive, runnable, sleeping, waiting, blocked, terminated = 0x1, 0x4, 0x40, 0x80, 0x400, 0x2
    assert jdwp_thread_status(terminated, False) == 0
    assert jdwp_thread_status(0, False) == -1  # not started
    assert jdwp_thread_status(alive | runnable, False) == 1
    assert jdwp_thread_status(alive | waiting | sleeping | 0x100000, False) == 2
    assert jdwp_thread_status(alive | blocked, False) == 3
    assert jdwp_thread_status(alive | waiting, False) == 4
    assert jdwp_thread_status(alive | waiting, True) == 1  # parked at an event: RUNNING
    assert jdwp_thread_status(alive, False) == -1


def test_the_end_of_an_invoke_from_a_one_thread_stop_suspends_every_thread_for_its_session():
    """A call that was not single-threaded suspends every thread at its end (JDI's contract, the
    agent's and the reference's behaviour): the session's undo must give back a whole-VM level
    (issue 28, item 6: after a Dispose the program's other threads stayed suspended)."""
    t = ThreadTable()
    t.suspended(A, 1)  # the event thread, stopped by a SUSPEND_EVENT_THREAD breakpoint
    t.get(2)
    t.invoke_suspended_all(A)
    assert (t.claims(A, 1), t.claims(A, 2), t.claims(A, 99)) == (1, 1, 1)
    assert t.claims(B, 2) == 0
    plan = t.take_undo_plan(A)
    assert plan.resume_all == 1 and plan.resume_threads == ()


def test_the_end_of_an_invoke_within_a_vm_suspension_changes_only_threads_let_out_of_it():
    t = ThreadTable()
    t.suspended_all(A)
    t.suspended(A, 1)  # and once more, alone
    t.get(2), t.get(3)
    t.resumed(A, 3)  # let out of the VM-wide suspension
    t.invoke_suspended_all(A)
    assert (t.claims(A, 1), t.claims(A, 2), t.claims(A, 3)) == (2, 1, 1)
    plan = t.take_undo_plan(A)
    assert plan.resume_all == 1 and plan.resume_threads == ((1, 1),)
