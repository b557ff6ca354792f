"""BIRD's execution accuracy, verbatim.

Source: https://github.com/bird-bench/mini_dev, evaluation/evaluation_ex.py, commit
4d970a9a97b172101840c661d74cc5a5e1c6ffa4 (the repository says CC BY-SA 4.0). The evaluator
calls `calculate_ex(cursor.fetchall() of the prediction, cursor.fetchall() of the gold)`.
"""
# ruff: noqa


def calculate_ex(predicted_res, ground_truth_res):
    res = 0
    if set(predicted_res) == set(ground_truth_res):
        res = 1
    return res
