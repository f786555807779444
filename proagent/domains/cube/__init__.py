"""CUBE (EmCoop's cooperative block pushing) as a proagent domain: ``--domain cube``."""
