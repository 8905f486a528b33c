"""The live class: join codes and secrets (``codes``), the class store (``store``), its QR code."""
