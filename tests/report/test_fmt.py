"""Numbers as the PDF and the window write them."""

from desktop_app.report.fmt import NBSP, change


def test_a_change_that_rounds_to_nothing_is_zero_never_minus_zero():
    assert change(-0.004) == f"0{NBSP}%"  # the PDF's What-if table printed "-0 %"
    assert change(0.0) == change(0.004) == f"0{NBSP}%"
    assert change(-0.006) == f"-1{NBSP}%" and change(0.125, "") == "+12%"
