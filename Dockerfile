# rlmc serve in a container: a static binary on a distroless, non-root base.
# Skills are mounted read-only at /skills and the host policy at
# /policy.yaml (an empty policy ships in the image, so mounting one is
# optional). Listening on 0.0.0.0 needs a token: set RLMC_TOKEN, or mount a
# file and pass --token-file (see docs/deploy.md).
#
#   docker build -t rlmc .
#   docker run -p 8787:8787 -e RLMC_TOKEN=... -v "$PWD/.agents/skills:/skills:ro" rlmc

FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# Static: no libc in the runtime image. -buildvcs=false because the build
# context need not hold .git.
RUN CGO_ENABLED=0 go build -trimpath -buildvcs=false -ldflags='-s -w' -o /out/rlmc ./cmd/rlmc \
 && mkdir -p /out/skills && touch /out/policy.yaml

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/rlmc /usr/local/bin/rlmc
COPY --from=build --chown=nonroot:nonroot /out/skills /skills
COPY --from=build /out/policy.yaml /policy.yaml
USER nonroot:nonroot
EXPOSE 8787
ENTRYPOINT ["/usr/local/bin/rlmc"]
CMD ["serve", "--addr", "0.0.0.0:8787", "--root", "/skills", "--policy", "/policy.yaml"]
