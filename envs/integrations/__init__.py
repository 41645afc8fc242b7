"""Adapters to libraries whose conventions differ from PettingZoo's and Gymnasium's.

Each module imports its library, so it is imported only by those who use that library
(``from envs.integrations.rllib import ...`` needs ``pip install -e ".[rllib]"``).
"""
