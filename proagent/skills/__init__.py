"""High-level skills an agent chooses and a controller grounds into primitive actions."""

from proagent.skills.overcooked import MAX_WAIT, Skill, SkillBook, SkillParseError

__all__ = ["MAX_WAIT", "Skill", "SkillBook", "SkillParseError"]
