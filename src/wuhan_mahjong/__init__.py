"""Wuhan Mahjong (武汉麻将, 红中癞子杠): rules, scoring, engine, bots and online play."""

__version__ = "0.1.0"
