"""The lanes' schedule model (builder.lane_schedule) against cases computed by hand."""
import pytest

from builder.lane_schedule import NEVER, Lane, demands, finish_times, nice_weight, water_fill


def test_the_kernels_weights_of_niceness():
    assert (nice_weight(0), nice_weight(10), nice_weight(19)) == (1024, 110, 15)
    assert nice_weight(25) == 15 and nice_weight(-30) == 88761


def test_water_filling_gives_a_lane_that_asks_less_what_it_asks_and_shares_the_rest_by_weight():
    # Dudo at nice 10 asks 1.2 of 2 cores (its fair share is 2 x 110 / 140 = 1.57): the two nice-19 lanes share 0.8
    assert water_fill([1.2, 2, 2], [110, 15, 15], 2.0) == pytest.approx([1.2, 0.4, 0.4])
    # nobody capped: by weight
    assert water_fill([2, 2], [110, 15], 1.0) == pytest.approx([0.88, 0.12])
    # a capped lane's leftover goes to the other
    assert water_fill([0.5, 2], [15, 15], 2.0) == pytest.approx([0.5, 1.5])
    assert water_fill([0.0, 1.0], [110, 15], 2.0) == pytest.approx([0.0, 1.0])


def test_a_lane_that_leaves_cores_to_a_lower_one_asks_for_its_rate_the_others_for_their_cores():
    # no core idle: Dudo at nice 10 leaves cores to the nice-19 lanes, so at 1.2 of its 2 it wanted no more; they did
    assert demands([Lane(10, 1.2, 2.0), Lane(19, 0.4, 1.0), Lane(19, 0.4, 1.0)]) == [1.2, 1.0, 1.0]
    # a nice-19 lane starved to 0.2 beside Dudo still asks for its cores
    assert demands([Lane(19, 0.2, 2.0), Lane(10, 1.8, 2.0)]) == [2.0, 2.0]
    # two lanes of one niceness at 0.3 where the machine's other work leaves them 0.6: each would take more
    assert demands([Lane(10, 0.3, 1.0), Lane(10, 0.3, 1.0)]) == [1.0, 1.0]
    # 1.8 cores idle: no lane waited for one
    assert demands([Lane(10, 0.2, 2.0), Lane(19, 0.0, 1.0)], idle=1.8) == [0.2, 0.0]


def test_the_stores_end_when_the_lanes_cores_say():
    # Dudo 120 CPU s left at 1.2 cores: 100 s. The 2-letter Jotto 100 CPU s at 0.4; the other Jotto lane 20 then 60 at
    # 0.4: its first store at 50 s, the next goes on at 0.4 (Dudo 60 left, the 2-letter 80, it 60); at 100 s Dudo ends
    # and the Jotto lanes get a core each (the 2-letter 60 left, the other 40): the other lane ends at 140 s, then the
    # 2-letter store, 20 left, alone on at most a core: 160 s.
    lanes = [Lane(10, 1.2, 2.0, [120.0]), Lane(19, 0.4, 1.0, [100.0]), Lane(19, 0.4, 1.0, [20.0, 60.0])]
    assert finish_times(lanes) == [pytest.approx([100.0]), pytest.approx([160.0]), pytest.approx([50.0, 140.0])]


def test_idle_cores_go_to_the_lanes_left_when_one_ends():
    # two lanes at 0.5 core each with a core idle: neither wanted more, so the second keeps its 0.5 when the first
    # ends (10 s): 50 CPU s at 0.5, 100 s
    lanes = [Lane(10, 0.5, 2.0, [5.0]), Lane(10, 0.5, 1.0, [50.0])]
    assert finish_times(lanes, idle=1.0) == [pytest.approx([10.0]), pytest.approx([100.0])]
    # the same with no core idle (the machine's other work holds one): each got its fair share, 0.5 of the 1 core
    # left, and wanted more; when the first ends the second takes that core: 45 CPU s left at 1 core, 55 s
    assert finish_times(lanes) == [pytest.approx([10.0]), pytest.approx([55.0])]
    # capacity 1 shared by two nice-10 lanes capped at 1 core: 0.5 each, then the one left takes the whole 1
    lanes = [Lane(10, 0.5, 1.0, [5.0]), Lane(10, 0.5, 1.0, [50.0])]
    assert finish_times(lanes) == [pytest.approx([10.0]), pytest.approx([55.0])]


def test_the_cores_of_a_lane_just_ended_go_to_the_lanes_left_at_once():
    # the 2-letter lane (nice 10) has just ended: it held 0.45 cores over the window that the two nice-19 lanes, 0.06
    # each, have not shown yet. They share the 0.45 by weight at once, 0.285 each: 5.7 CPU s left ends at 20 s; then
    # the other lane alone gets the 0.57 (capped at 2): 28.5 - 5.7 = 22.8 left, 40 s more
    lanes = [Lane(19, 0.06, 2.0, [5.7]), Lane(19, 0.06, 2.0, [28.5])]
    assert finish_times(lanes, freed=0.45) == [pytest.approx([20.0]), pytest.approx([60.0])]
    # without the freed cores: 0.06 each until the first ends (95 s), then 0.12
    assert finish_times(lanes) == [pytest.approx([95.0]), pytest.approx([95.0 + (28.5 - 5.7) / 0.12])]
    # a lane that asked for no more gets none of them: one core idle and a lane just ended
    lanes = [Lane(10, 0.5, 2.0, [5.0])]
    assert finish_times(lanes, idle=1.0, freed=0.5) == [pytest.approx([10.0])]


def test_a_part_of_a_store_that_asks_for_fewer_cores_leaves_them_to_the_others():
    # Dudo at 1.6 cores (two groups side by side), 80 CPU s, then its last group alone: 40 CPU s asking 0.8; the
    # nice-19 Jotto lane at 0.2, 100 CPU s. At 50 s Dudo's part ends and it asks 0.8: the Jotto lane gets 1.0 of the
    # 1.8 (90 left); at 100 s Dudo ends, the Jotto lane takes the 1.8 for its last 40: 122.2 s
    lanes = [Lane(10, 1.6, 2.0, [80.0, 40.0], [None, 0.8]), Lane(19, 0.2, 2.0, [100.0])]
    assert finish_times(lanes) == [pytest.approx([50.0, 100.0]), pytest.approx([100.0 + 40.0 / 1.8])]


def test_a_lane_that_gets_no_core_never_ends_and_an_empty_plan_ends_at_once():
    assert finish_times([Lane(19, 0.0, 1.0, [10.0, 5.0])]) == [[NEVER, NEVER]]
    assert finish_times([Lane(10, 1.0, 1.0, [])]) == [[]]


def test_each_lane_weighs_its_parts_busy_tasks_as_the_kernel_weighs_each_task():
    # Dudo (nice 10) ends its part of two groups (16 CPU s at 1.6) at 10 s, then asks for 1 core for its group alone;
    # the two nice-19 lanes share the 0.8 it leaves: 0.4 each while both run one task. The 5-letter Jotto store's
    # first part (2 CPU s: 1 by 10 s) ends at 12.5 s; its next part runs two trees, so it gets 0.533 and the 2-letter
    # store (one task) 0.267: its 20 CPU s end at 50 s (weighed once, at 0.4: 61.1 s). The 2-letter store's 40 CPU s:
    # 2 by 12.5 s, 12 by 50 s, 20 by 60 s (0.8 alone) where Dudo's 50 CPU s end, then the 1.8 cores: 71.1 s
    ends = finish_times([Lane(10, 1.6, 2.0, [16.0, 50.0], [None, 1.0], tasks=[2.0, 1.0]), Lane(19, 0.1, 2.0, [40.0]),
                         Lane(19, 0.1, 2.0, [2.0, 20.0], tasks=[1.0, 2.0])])
    assert ends == [pytest.approx([10.0, 60.0]), pytest.approx([60.0 + 20.0 / 1.8]), pytest.approx([12.5, 50.0])]
    weighed_once = finish_times([Lane(10, 1.6, 2.0, [16.0, 50.0], [None, 1.0]), Lane(19, 0.1, 2.0, [40.0]),
                                 Lane(19, 0.1, 2.0, [2.0, 20.0])])
    assert weighed_once[2] == pytest.approx([12.5, 60.0 + 1.0 / 0.9])    # 19 of its 20 at 0.4, then 0.9


def test_the_lanes_share_no_more_than_the_cores_they_run_on():
    # Dudo at 0.9 cores, a Jotto lane at 0.6 and 0.7 cores idle, read over windows that differ: 2.2 of 2 cores. Dudo's
    # part of two groups (from 10 s) asks for 1.8: the 2 cores shared by weight give it 2 x 110 / 125 = 1.76 and the
    # Jotto lane 0.24 (not the 0.4 that 2.2 would leave it), its 94 CPU s left then; Dudo ends at 10 + 160 / 1.76 =
    # 100.9 s, the Jotto lane's 94 - 0.24 x 90.9 = 72.2 left at its 0.6: 221.2 s (196.3 s shared out of 2.2 cores)
    lanes = [Lane(10, 0.9, 2.0, [9.0, 160.0], [None, 1.8]), Lane(19, 0.6, 2.0, [100.0])]
    assert finish_times(lanes, idle=0.7) == [pytest.approx([10.0, 100.909], abs=1e-3), pytest.approx([221.212], abs=1e-3)]
