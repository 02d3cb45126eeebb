import asyncio
import os


def echo(text: str, times: int = 1) -> str:
    return " ".join([text] * times)


async def aecho(text: str) -> str:
    await asyncio.sleep(0)
    return text


def add(a: float, b: float) -> dict:
    return {"sum": a + b}


def has_flag() -> bool:
    return os.environ.get("BASIC_FLAG") == "1"


def broken_check() -> bool:
    raise RuntimeError("service down")
