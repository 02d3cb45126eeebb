def run(text: str = "") -> str:
    return text
