# A JDK or JRE image for machines without Docker Hub: the local Debian root file system plus
# Debian's OpenJDK package (PACKAGE, e.g. openjdk-25-jdk-headless).
ARG DEBIAN_IMAGE
FROM ${DEBIAN_IMAGE}
ARG PACKAGE
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates curl "${PACKAGE}" \
 && rm -rf /var/lib/apt/lists/*
