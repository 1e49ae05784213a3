# A Go toolchain image for machines without Docker Hub: the local Debian root file system plus
# the official Go release, which the Go module proxy serves as golang.org/toolchain.
ARG DEBIAN_IMAGE
FROM ${DEBIAN_IMAGE}
ARG GO_VERSION
ARG GOPROXY=https://proxy.golang.org
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates curl unzip \
 && rm -rf /var/lib/apt/lists/* \
 && curl -fsSL -o /tmp/go.zip "${GOPROXY%%,*}/golang.org/toolchain/@v/v0.0.1-go${GO_VERSION}.linux-amd64.zip" \
 && unzip -q /tmp/go.zip -d /tmp/go \
 && mv "/tmp/go/golang.org/toolchain@v0.0.1-go${GO_VERSION}.linux-amd64" /usr/local/go \
 && rm -rf /tmp/go /tmp/go.zip
ENV GOPATH=/go PATH=/usr/local/go/bin:/go/bin:${PATH} GOTOOLCHAIN=local
