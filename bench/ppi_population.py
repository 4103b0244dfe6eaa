"""Synthetic populations for the prediction-powered ratings: models with known skills, comparisons
whose answers differ in quality from item to item, human voters who see that quality with some
noise, and a judge that sees the same quality through a position bias and a bias per model.
Shared by bench/sample_efficiency.py and the tests, so both draw the same kind of world."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from workbench.stats.ppi import Comparisons, classical_ratings


@dataclass(frozen=True)
class Population:
    skills: np.ndarray  # natural log-odds, model 0 first
    item_spread: float = 3.0  # how much an answer pair's quality varies around the skills
    position_bias: float = 0.6  # the judge's pull toward the answer shown first (logits)
    model_bias: np.ndarray | None = None  # the judge's taste per model (logits)
    judge_sharpness: float = 3.0  # how decisively the judge reads the quality difference
    human_sharpness: float = 1.5  # how decisively a voter reads it
    informative: bool = True  # False: the judge's verdicts ignore the answers

    @property
    def models(self) -> int:
        return len(self.skills)

    def draw(self, rng: np.random.Generator, count: int) -> tuple[Comparisons, np.ndarray]:
        """``count`` comparisons with the human outcome, and the judge's verdict on each."""
        a = rng.integers(0, self.models, count)
        b = (a + rng.integers(1, self.models, count)) % self.models
        quality = self.skills[a] - self.skills[b] + rng.normal(0, self.item_spread, count)
        human = (rng.random(count) < expit(self.human_sharpness * quality)).astype(float)
        bias = self.model_bias if self.model_bias is not None else np.zeros(self.models)
        seen = self.judge_sharpness * quality if self.informative else np.zeros(count)
        # judged in both orders, as the app does by default: a shown first, then b shown first;
        # the verdict kept is the mean of the two (a tie when they disagree)
        first = rng.random(count) < expit(seen + self.position_bias + bias[a] - bias[b])
        second = rng.random(count) < expit(-seen + self.position_bias + bias[b] - bias[a])
        judge = (first.astype(float) + (1 - second.astype(float))) / 2
        return Comparisons(a, b, human), judge


def make_population(seed: int, models: int = 8, informative: bool = True) -> Population:
    rng = np.random.default_rng(10_000 + seed)
    skills = np.sort(rng.normal(0, 0.8, models))[::-1]
    return Population(
        skills=skills - skills[0],
        model_bias=rng.normal(0, 0.7, models),
        informative=informative,
    )


def true_ratings(population: Population, samples: int = 400_000, seed: int = 0) -> np.ndarray:
    """The humans' Bradley-Terry ratings of the whole population (what every estimate aims at),
    from a sample large enough that its own error is far below the intervals'."""
    comparisons, _judge = population.draw(np.random.default_rng(seed), samples)
    return classical_ratings(population.models, comparisons).ratings
